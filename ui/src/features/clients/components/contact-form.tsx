import { useState } from 'react';
import { FormProvider, type Path, useForm } from 'react-hook-form';
import { ErrorAlert } from '../../../components/alert';
import { Button, ButtonRow } from '../../../components/button';
import { ContactDetailsFields } from '../../../components/contact-fields';
import { DateField } from '../../../components/date-field';
import { FieldRow, FormPanel } from '../../../components/form-layout';
import { TextField } from '../../../components/text-field';
import { useCommandId } from '../../../lib/command-id';
import { type ContactFormValues, contactFieldName, toContactPayload } from '../../../lib/contact-form-values';
import { errorMessage, HttpError } from '../../../lib/http';
import type { NewContact } from '../api';

const required = (message: string) => (value: string) => value.trim() !== '' || message;

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
  const commandId = useCommandId();
  const [failure, setFailure] = useState<string | null>(null);
  const form = useForm<ContactFormValues>({ mode: 'onTouched', defaultValues: initial });
  const {
    register,
    handleSubmit,
    setError,
    formState: { errors, isSubmitting },
  } = form;

  const onSubmit = handleSubmit(async (values) => {
    setFailure(null);
    try {
      await onSave(toContactPayload(values), commandId.current());
      commandId.settle();
    } catch (error) {
      commandId.settle(error);
      setFailure(errorMessage(error));
      if (error instanceof HttpError && error.fields) {
        for (const [field, message] of Object.entries(error.fields)) {
          setError(contactFieldName(field) as Path<ContactFormValues>, { type: 'server', message });
        }
      }
    }
  });

  return (
    <FormProvider {...form}>
      <FormPanel noValidate onSubmit={onSubmit}>
        <FieldRow>
          <TextField
            id="firstName"
            label="First Name"
            required
            autoComplete="given-name"
            error={errors.firstName?.message}
            {...register('firstName', { validate: required('First name is required') })}
          />
          <TextField
            id="lastName"
            label="Last Name"
            required
            autoComplete="family-name"
            error={errors.lastName?.message}
            {...register('lastName', { validate: required('Last name is required') })}
          />
        </FieldRow>

        <ContactDetailsFields addressAndPhoneRequired autoComplete />

        <DateField id="dob" label="Date of Birth" error={errors.dob?.message} {...register('dob')} />

        {failure ? <ErrorAlert>{failure}</ErrorAlert> : null}
        <ButtonRow>
          <Button type="submit" disabled={isSubmitting}>
            {isSubmitting ? 'Saving…' : 'Save'}
          </Button>
          <Button type="button" variant="secondary" onClick={onCancel}>
            Cancel
          </Button>
        </ButtonRow>
      </FormPanel>
    </FormProvider>
  );
}
