import { useState } from 'react';
import { type Path, useForm } from 'react-hook-form';
import { ErrorAlert } from '../../../components/alert';
import { Button, ButtonRow } from '../../../components/button';
import { DateField } from '../../../components/date-field';
import { FieldRow, FormPanel } from '../../../components/form-layout';
import { TextField } from '../../../components/text-field';
import { useCommandId } from '../../../lib/command-id';
import { errorMessage, HttpError } from '../../../lib/http';
import type { Child } from '../api';

export type ChildFormValues = Omit<Child, 'id'>;

const required = (message: string) => (value: string) => value.trim() !== '' || message;

export function ChildForm({
  initial,
  onSave,
  onCancel,
}: {
  initial: ChildFormValues;
  onSave: (child: ChildFormValues, commandId: string) => Promise<void>;
  onCancel: () => void;
}) {
  const commandId = useCommandId();
  const [failure, setFailure] = useState<string | null>(null);
  const {
    register,
    handleSubmit,
    setError,
    formState: { errors, isSubmitting },
  } = useForm<ChildFormValues>({ mode: 'onTouched', defaultValues: initial });

  const onSubmit = handleSubmit(async (values) => {
    setFailure(null);
    try {
      await onSave(
        { firstName: values.firstName.trim(), lastName: values.lastName.trim(), dob: values.dob },
        commandId.current(),
      );
      commandId.settle();
    } catch (error) {
      commandId.settle(error);
      setFailure(errorMessage(error));
      if (error instanceof HttpError && error.fields) {
        for (const [field, message] of Object.entries(error.fields)) {
          setError(field as Path<ChildFormValues>, { type: 'server', message });
        }
      }
    }
  });

  return (
    <FormPanel noValidate onSubmit={onSubmit}>
      <FieldRow>
        <TextField
          id="firstName"
          label="First Name"
          required
          error={errors.firstName?.message}
          {...register('firstName', { validate: required('First name is required') })}
        />
        <TextField
          id="lastName"
          label="Last Name"
          required
          error={errors.lastName?.message}
          {...register('lastName', { validate: required('Last name is required') })}
        />
      </FieldRow>
      <DateField
        id="dob"
        label="Date of Birth"
        required
        error={errors.dob?.message}
        {...register('dob', { validate: required('Date of birth is required') })}
      />
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
  );
}
