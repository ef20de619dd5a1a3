import styled from '@emotion/styled';
import { useEffect, useState } from 'react';
import { Controller } from 'react-hook-form';
import { Checkbox } from '../../../components/checkbox';
import { DateField } from '../../../components/date-field';
import { FormActions } from '../../../components/form-actions';
import { FieldRow, Fieldset, FormPanel } from '../../../components/form-layout';
import { Select } from '../../../components/select';
import { SubjectsField } from '../../../components/subjects-field';
import { TextField } from '../../../components/text-field';
import { Typeahead } from '../../../components/typeahead';
import { fetchAgencyDetails } from '../../../lib/agency-details';
import { useAgencyToday } from '../../../lib/current-user';
import { matchNames } from '../../../lib/name-match';
import { useCommandForm } from '../../../lib/use-command-form';
import { useLoader } from '../../../lib/use-loader';
import { required } from '../../../lib/validation';
import {
  type ClientOption,
  fetchChildren,
  fetchClientOptions,
  fetchTutorOptions,
  type SavedConsultation,
} from '../api';

export type ConsultationValues = {
  date: string;
  client: string;
  child: string;
  amount: string;
  assessment: boolean;
  subjects: string[];
  tutorId: string;
};

const AssessmentBlock = styled.div(({ theme }) => ({
  borderLeft: `3px solid ${theme.colors.primary}`,
  padding: '0.5rem 0 0.25rem 1rem',
  margin: '0 0 1rem',
}));

const loadClients = (_: 'active', signal: AbortSignal) => fetchClientOptions(signal);
const loadChildren = (clientId: string, signal: AbortSignal) => fetchChildren(clientId, signal);
const loadTutors = (_: 'active', signal: AbortSignal) => fetchTutorOptions(signal);
const loadAgency = (_: 'agency', signal: AbortSignal) => fetchAgencyDetails(signal);
const clientName = (client: ClientOption) => client.name;
const matchClients = (clients: readonly ClientOption[], typed: string) => matchNames(clients, typed, clientName);

/** '£1,234.50' → '1234.50'; the server reads the same forms. */
export const plainAmount = (value: string) => value.trim().replace(/^£/, '').replace(/[,\s]/g, '');

/** The server names assessment fields by their place in the body. */
const formField = (field: string) =>
  (
    ({
      date: 'date',
      client: 'client',
      child: 'child',
      amount: 'amount',
      'assessmentDetails.subjects': 'subjects',
      'assessmentDetails.tutorId': 'tutorId',
    }) as const
  )[field];

/**
 * consultations/new: Date, Client (typeahead; choosing one loads its children), Child (a select
 * showing 3 rows), Assessment? (its block shows only when ticked: subjects assessed and the tutor
 * who assessed), Amount (the agency's default, 175).
 */
export function ConsultationForm({
  onSave,
  onCancel,
}: {
  onSave: (values: ConsultationValues, commandId: string) => Promise<SavedConsultation | undefined>;
  onCancel: () => void;
}) {
  const today = useAgencyToday();
  const [client, setClient] = useState<ClientOption | null>(null);
  const clients = useLoader(loadClients, 'active');
  const children = useLoader(loadChildren, client?.id ?? '');
  const tutors = useLoader(loadTutors, 'active');
  const agency = useLoader(loadAgency, 'agency');
  const { form, onSubmit, failure } = useCommandForm<ConsultationValues>({
    defaultValues: { date: today, client: '', child: '', amount: '175', assessment: false, subjects: [], tutorId: '' },
    save: async (values, commandId) => {
      await onSave(values, commandId);
    },
    fieldName: formField,
  });
  const {
    register,
    control,
    setValue,
    watch,
    getFieldState,
    formState: { errors, isSubmitting },
  } = form;

  const defaultAmount = agency.state.data?.defaultConsultationAmount;
  useEffect(() => {
    if (defaultAmount !== undefined && !getFieldState('amount').isDirty) setValue('amount', String(defaultAmount));
  }, [defaultAmount, getFieldState, setValue]);

  const childOptions = (children.state.data ?? []).map((child) => ({ value: child.id, label: child.name }));
  const tutorOptions = [
    { value: '', label: 'Not recorded' },
    ...(tutors.state.data ?? []).map((tutor) => ({ value: tutor.id, label: tutor.name })),
  ];

  return (
    <FormPanel noValidate onSubmit={onSubmit} aria-label="New consultation">
      <DateField
        id="date"
        label="Date"
        required
        error={errors.date?.message}
        {...register('date', { validate: required('Date is required') })}
      />
      <Controller
        control={control}
        name="client"
        rules={{ validate: required('Client is required') }}
        render={({ field, fieldState }) => (
          <Typeahead
            id="client"
            label="Client"
            noun="clients"
            placeholder="Type a client's name"
            error={fieldState.error?.message}
            state={clients.state}
            retry={clients.retry}
            match={matchClients}
            textOf={clientName}
            selected={client}
            onSelect={(chosen) => {
              setClient(chosen);
              field.onChange(chosen?.id ?? '');
              setValue('child', '');
            }}
            onBlur={field.onBlur}
          />
        )}
      />
      <Select
        id="child"
        label="Child"
        required
        size={3}
        options={childOptions}
        error={errors.child?.message}
        {...register('child', { validate: required('Child is required') })}
      />
      <Checkbox id="assessment" label="Assessment?" {...register('assessment')} />
      {watch('assessment') ? (
        <AssessmentBlock>
          <SubjectsField legend="Subjects assessed" registration={register('subjects')} />
          {errors.subjects?.message ? <p role="alert">{errors.subjects.message}</p> : null}
          <FieldRow>
            <Select id="tutorId" label="Assessed by" options={tutorOptions} {...register('tutorId')} />
          </FieldRow>
        </AssessmentBlock>
      ) : null}
      <Fieldset>
        <TextField
          id="amount"
          label="Amount"
          inputMode="decimal"
          error={errors.amount?.message}
          {...register('amount', {
            validate: (value) =>
              plainAmount(value) === '' ||
              /^\d+(\.\d{1,2})?$/.test(plainAmount(value)) ||
              'Amount must be in pounds and pence, e.g. 175.00',
          })}
        />
      </Fieldset>
      <FormActions failure={failure} submitting={isSubmitting} onCancel={onCancel} />
    </FormPanel>
  );
}
