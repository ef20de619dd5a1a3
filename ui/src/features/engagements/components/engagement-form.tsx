import { Controller, type FieldPath } from 'react-hook-form';
import { ErrorAlert } from '../../../components/alert';
import { DateField } from '../../../components/date-field';
import { FormActions } from '../../../components/form-actions';
import { FieldRow, FormPanel } from '../../../components/form-layout';
import { SubjectsField } from '../../../components/subjects-field';
import { TextField } from '../../../components/text-field';
import { useCommandForm } from '../../../lib/use-command-form';
import type { Student } from '../api';
import { StudentTypeahead } from './student-typeahead';

export type EngagementFormValues = {
  student: Student | null;
  rate: string;
  commissionPct: string;
  partnerPct: string;
  date: string;
  subjects: string[];
};

/** Which parts a form shows: Add Student has them all, Terminate only its date. */
export type EngagementFormParts = {
  student?: boolean;
  terms?: boolean;
  subjects?: boolean;
  dateLabel: string;
  submitLabel?: string;
};

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)$/;
const numeric = (value: string) => value.trim().replace(/^£/, '').replace(/,/g, '');

const amount = (required: string, label: string) => (value: string) => {
  const text = numeric(value);
  if (text === '') return required;
  if (!NUMBER.test(text)) return `${label} must be a number`;
  if (Number(text) < 0) return `${label} cannot be negative`;
  return true;
};

const percentage = (required: string, label: string) => (value: string) => {
  const text = numeric(value);
  if (text === '') return required;
  if (!NUMBER.test(text)) return `${label} must be a number`;
  const number = Number(text);
  return (number >= 0 && number <= 100) || `${label} must be between 0 and 100`;
};

// Server field names as this form calls them.
const FORM_FIELD: Record<string, FieldPath<EngagementFormValues>> = {
  studentId: 'student',
  rate: 'rate',
  commissionPct: 'commissionPct',
  partnerPct: 'partnerPct',
  startDate: 'date',
  endDate: 'date',
  subjects: 'subjects',
};

export const asSubjects = (value: unknown): string[] =>
  Array.isArray(value) ? value : typeof value === 'string' && value ? [value] : [];

export function EngagementForm({
  parts,
  initial,
  onSave,
  onCancel,
}: {
  parts: EngagementFormParts;
  initial: EngagementFormValues;
  onSave: (values: EngagementFormValues, commandId: string) => Promise<void>;
  onCancel: () => void;
}) {
  const { form, onSubmit, failure } = useCommandForm<EngagementFormValues>({
    defaultValues: initial,
    save: (values, commandId) =>
      onSave(
        {
          ...values,
          rate: numeric(values.rate),
          commissionPct: numeric(values.commissionPct),
          partnerPct: numeric(values.partnerPct),
          subjects: asSubjects(values.subjects),
        },
        commandId,
      ),
    fieldName: (field) => FORM_FIELD[field],
  });
  const {
    control,
    register,
    formState: { errors, isSubmitting },
  } = form;

  const dateId = parts.dateLabel.toLowerCase().replace(/\W+/g, '-');
  return (
    <FormPanel noValidate onSubmit={onSubmit}>
      {parts.student ? (
        <Controller
          control={control}
          name="student"
          rules={{ validate: (student) => student !== null || 'Student is required' }}
          render={({ field, fieldState }) => (
            <StudentTypeahead
              id="student"
              label="Find Student"
              error={fieldState.error?.message}
              selected={field.value}
              onSelect={field.onChange}
              onBlur={field.onBlur}
            />
          )}
        />
      ) : null}
      {parts.terms ? (
        <FieldRow>
          <TextField
            id="rate"
            label="Rate"
            inputMode="decimal"
            required
            error={errors.rate?.message}
            {...register('rate', { validate: amount('Rate is required', 'Rate') })}
          />
          <TextField
            id="commissionPct"
            label="Commission %"
            inputMode="decimal"
            required
            error={errors.commissionPct?.message}
            {...register('commissionPct', { validate: percentage('Commission % is required', 'Commission %') })}
          />
          <TextField
            id="partnerPct"
            label="Partner %"
            inputMode="decimal"
            required
            error={errors.partnerPct?.message}
            {...register('partnerPct', { validate: percentage('Partner % is required', 'Partner %') })}
          />
        </FieldRow>
      ) : null}
      <DateField
        id={dateId}
        label={parts.dateLabel}
        required
        error={errors.date?.message}
        {...register('date', { validate: (value) => value !== '' || `${parts.dateLabel} is required` })}
      />
      {parts.subjects ? <SubjectsField registration={register('subjects')} /> : null}
      {errors.subjects?.message ? <ErrorAlert>{errors.subjects.message}</ErrorAlert> : null}
      <FormActions
        failure={failure}
        submitting={isSubmitting}
        submitLabel={parts.submitLabel ?? 'Save'}
        onCancel={onCancel}
      />
    </FormPanel>
  );
}
