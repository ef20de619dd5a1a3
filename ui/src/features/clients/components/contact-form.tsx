import { FormProvider, type Path } from 'react-hook-form';
import { ContactDetailsFields } from '../../../components/contact-fields';
import { DateField } from '../../../components/date-field';
import { FormActions } from '../../../components/form-actions';
import { FormPanel } from '../../../components/form-layout';
import { type ContactFormValues, contactFieldName, toContactPayload } from '../../../lib/contact-form-values';
import { useCommandForm } from '../../../lib/use-command-form';
import type { NewContact } from '../api';

/**
 * First Name, Last Name, four address lines, Postcode, Email, two phone slots and an optional
 * date of birth. `onSave` gets the cleaned contact and the command id of this save.
 */
export function ContactForm({
  initial,
  onSave,
  onCancel,
}: {
  initial: ContactFormValues;
  onSave: (contact: NewContact, commandId: string) => Promise<void>;
  onCancel: () => void;
}) {
  const { form, onSubmit, failure } = useCommandForm<ContactFormValues>({
    defaultValues: initial,
    save: (values, commandId) => onSave(toContactPayload(values), commandId),
    fieldName: (field) => contactFieldName(field) as Path<ContactFormValues>,
  });
  const {
    register,
    formState: { errors, isSubmitting },
  } = form;

  return (
    <FormProvider {...form}>
      <FormPanel noValidate onSubmit={onSubmit}>
        <ContactDetailsFields addressAndPhoneRequired autoComplete />

        <DateField id="dob" label="Date of Birth" error={errors.dob?.message} {...register('dob')} />

        <FormActions failure={failure} submitting={isSubmitting} onCancel={onCancel} />
      </FormPanel>
    </FormProvider>
  );
}
