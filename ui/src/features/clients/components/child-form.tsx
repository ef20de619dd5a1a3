import { DateField } from '../../../components/date-field';
import { FormActions } from '../../../components/form-actions';
import { FieldRow, FormPanel } from '../../../components/form-layout';
import { TextField } from '../../../components/text-field';
import { useCommandForm } from '../../../lib/use-command-form';
import { required } from '../../../lib/validation';
import type { Child } from '../api';

export type ChildFormValues = Omit<Child, 'id' | 'dob'> & { dob: string };

export function ChildForm({
  initial,
  onSave,
  onCancel,
}: {
  initial: ChildFormValues;
  onSave: (child: ChildFormValues, commandId: string) => Promise<void>;
  onCancel: () => void;
}) {
  const { form, onSubmit, failure } = useCommandForm<ChildFormValues>({
    defaultValues: initial,
    save: (values, commandId) =>
      onSave({ firstName: values.firstName.trim(), lastName: values.lastName.trim(), dob: values.dob }, commandId),
  });
  const {
    register,
    formState: { errors, isSubmitting },
  } = form;

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
      <FormActions failure={failure} submitting={isSubmitting} onCancel={onCancel} />
    </FormPanel>
  );
}
