import { useState } from 'react';
import { FormProvider, type Path } from 'react-hook-form';
import { ContactDetailsFields } from '../../../components/contact-fields';
import { DateField } from '../../../components/date-field';
import { FormActions } from '../../../components/form-actions';
import { FieldRow, FormPanel } from '../../../components/form-layout';
import { TextField } from '../../../components/text-field';
import {
  type ContactFields,
  cleanContactFields,
  contactFieldName,
  toContactFields,
} from '../../../lib/contact-form-values';
import { useCommandForm } from '../../../lib/use-command-form';
import { required } from '../../../lib/validation';
import type { NewTutor } from '../api';

export type TutorFormValues = ContactFields & {
  username: string;
  invoicePrefix: string;
  startDate: string;
};

export const blankTutorForm = (startDate: string): TutorFormValues => ({
  ...toContactFields(),
  username: '',
  invoicePrefix: '',
  startDate,
});

/** The body to send: text trimmed, blank address lines and phone slots without a number dropped. */
export function toTutorPayload(values: TutorFormValues): NewTutor {
  return {
    contact: cleanContactFields(values),
    tutor: {
      username: values.username.trim(),
      invoicePrefix: values.invoicePrefix.trim(),
      startDate: values.startDate || null,
    },
  };
}

/** Where a server field error (`contact.firstName`, `tutor.username`…) belongs on the form. */
export function tutorFieldName(field: string): string {
  return contactFieldName(field.replace(/^tutor\./, ''));
}

/**
 * New Tutor: the contact, then Username and Invoice Prefix. Leaving Last Name asks the server
 * for a suggestion, which fills both unless the admin has typed their own. Without `onSuggest`
 * it is the tutor's Edit Contact: a tutor keeps the username and prefix first given (shown, not
 * editable) and the start date is changed by reactivation, so neither is on the form.
 */
export function TutorForm({
  initial,
  onSuggest,
  onSave,
  onCancel,
}: {
  initial: TutorFormValues;
  onSuggest?: (names: { firstName: string; lastName: string }) => Promise<{ username: string; prefix: string }>;
  onSave: (tutor: NewTutor, commandId: string) => Promise<void>;
  onCancel: () => void;
}) {
  const editing = !onSuggest;
  const [suggested, setSuggested] = useState({ username: '', invoicePrefix: '' });
  const { form, onSubmit, failure } = useCommandForm<TutorFormValues>({
    defaultValues: initial,
    save: (values, commandId) => onSave(toTutorPayload(values), commandId),
    fieldName: (field) => tutorFieldName(field) as Path<TutorFormValues>,
  });
  const {
    register,
    setValue,
    getValues,
    clearErrors,
    formState: { errors, isSubmitting },
  } = form;

  const suggest = async () => {
    const { firstName, lastName, username, invoicePrefix } = getValues();
    if (!onSuggest || !firstName.trim() || !lastName.trim()) return;
    try {
      const answer = await onSuggest({ firstName: firstName.trim(), lastName: lastName.trim() });
      // Only fill what the admin has not chosen themselves.
      if (!username.trim() || username === suggested.username) {
        setValue('username', answer.username, { shouldValidate: false });
        clearErrors('username');
      }
      if (!invoicePrefix.trim() || invoicePrefix === suggested.invoicePrefix) {
        setValue('invoicePrefix', answer.prefix, { shouldValidate: false });
        clearErrors('invoicePrefix');
      }
      setSuggested({ username: answer.username, invoicePrefix: answer.prefix });
    } catch {
      // A suggestion is a convenience: the admin can still type both names.
    }
  };

  return (
    <FormProvider {...form}>
      <FormPanel noValidate onSubmit={onSubmit}>
        <ContactDetailsFields addressAndPhoneRequired={false} autoComplete={false} onLastNameLeft={suggest} />

        <FieldRow>
          <TextField
            id="username"
            label="Username"
            required
            readOnly={editing}
            autoComplete="off"
            error={errors.username?.message}
            {...register('username', { validate: required('Username is required') })}
          />
          <TextField
            id="invoicePrefix"
            label="Invoice Prefix"
            required
            readOnly={editing}
            autoComplete="off"
            error={errors.invoicePrefix?.message}
            {...register('invoicePrefix', { validate: required('Invoice Prefix is required') })}
          />
        </FieldRow>
        {editing ? null : <DateField id="startDate" label="Start Date" {...register('startDate')} />}

        <FormActions failure={failure} submitting={isSubmitting} onCancel={onCancel} />
      </FormPanel>
    </FormProvider>
  );
}
