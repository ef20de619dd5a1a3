import { managesAgency } from '@agency/contracts/role-rules';
import styled from '@emotion/styled';
import { Checkbox } from '../../../components/checkbox';
import { FormActions } from '../../../components/form-actions';
import { FieldRow, Fieldset, FormPanel } from '../../../components/form-layout';
import { LoadState } from '../../../components/load-state';
import { PageHeading } from '../../../components/page-heading';
import { SettingsNav } from '../../../components/settings-nav';
import { TextField } from '../../../components/text-field';
import { useCurrentUser } from '../../../lib/current-user';
import { useCommandForm } from '../../../lib/use-command-form';
import { useLoader } from '../../../lib/use-loader';
import { required } from '../../../lib/validation';
import { type AgencyDetails, fetchAgencyDetails, saveAgencyDetails } from '../api';

type Values = Omit<AgencyDetails, 'address' | 'paymentTermsDays' | 'defaultConsultationAmount'> & {
  address: string[];
  paymentTermsDays: string;
  defaultConsultationAmount: string;
};

const loadAgency = (_: 'agency', signal: AbortSignal) => fetchAgencyDetails(signal);

const text: [name: keyof Values & string, label: string, message: string][] = [
  ['name', 'Name', 'Name is required'],
  ['postcode', 'Postcode', 'Postcode is required'],
  ['email', 'Email', 'Email is required'],
  ['phone', 'Phone', 'Phone is required'],
];
const bank: [name: keyof Values & string, label: string, message: string][] = [
  ['bankName', 'Bank Name', 'Bank name is required'],
  ['accountName', 'Account Name', 'Account name is required'],
  ['sortCode', 'Sort Code', 'Sort code is required'],
  ['accountNumber', 'Account Number', 'Account number is required'],
];

/** Holds every field: disabled as one for a role that reads the details and changes nothing. */
const Fields = styled.fieldset({ border: 'none', margin: 0, padding: 0, minWidth: 0 });

function SettingsForm({ details }: { details: AgencyDetails }) {
  // An auditor reads the details: the fields are shown disabled, with no Save.
  const readOnly = !managesAgency(useCurrentUser().role);
  const { form, onSubmit, failure, saved } = useCommandForm<Values>({
    defaultValues: {
      ...details,
      address: [0, 1, 2, 3].map((index) => details.address[index] ?? ''),
      paymentTermsDays: String(details.paymentTermsDays),
      defaultConsultationAmount: String(details.defaultConsultationAmount),
    },
    save: async (values, commandId) => {
      await saveAgencyDetails({ ...values, commandId });
    },
    fieldName: (field) => (field.startsWith('address') ? 'address.0' : (field as keyof Values)),
  });
  const {
    register,
    formState: { errors, isSubmitting },
  } = form;
  const input = ([name, label, message]: (typeof text)[number]) => (
    <TextField
      key={name}
      id={name}
      label={label}
      required
      error={errors[name]?.message as string | undefined}
      {...register(name as 'name', { validate: required(message) })}
    />
  );
  return (
    <FormPanel noValidate onSubmit={onSubmit} aria-label="Agency details">
      <Fields disabled={readOnly}>
        <Fieldset>
          <legend>The agency</legend>
          {input(text[0]!)}
          {[0, 1, 2, 3].map((index) => (
            <TextField
              key={index}
              id={`address-${index}`}
              label={`Address line ${index + 1}`}
              required={index === 0}
              error={index === 0 ? errors.address?.[0]?.message : undefined}
              {...register(
                `address.${index}` as const,
                index === 0 ? { validate: required('Address is required') } : {},
              )}
            />
          ))}
          <FieldRow>{text.slice(1).map(input)}</FieldRow>
        </Fieldset>
        <Fieldset>
          <legend>Bank account</legend>
          <FieldRow>{bank.map(input)}</FieldRow>
          <Checkbox id="showBankNotice" label="Show the new bank account notice" {...register('showBankNotice')} />
          <TextField
            id="bankNoticeText"
            label="Notice text"
            error={errors.bankNoticeText?.message}
            {...register('bankNoticeText')}
          />
        </Fieldset>
        <Fieldset>
          <legend>Family invoices</legend>
          <FieldRow>
            {input(['familyInvoicePrefix', 'Invoice Prefix', 'Invoice prefix is required'])}
            {input(['paymentTermsDays', 'Payment Terms (days)', 'Payment terms are required'])}
            {input([
              'defaultConsultationAmount',
              'Default Consultation Amount',
              'Default consultation amount is required',
            ])}
          </FieldRow>
        </Fieldset>
      </Fields>
      {readOnly ? null : (
        <FormActions failure={failure} submitting={isSubmitting} saved={saved} onCancel={() => form.reset()} />
      )}
    </FormPanel>
  );
}

/** settings (admins): the agency's own details, printed on every invoice and in the bank-account notice. */
export function SettingsPage() {
  const { state, retry } = useLoader(loadAgency, 'agency');
  return (
    <>
      <PageHeading title="Settings" />
      <SettingsNav />
      <LoadState state={state} onRetry={retry}>
        {(details) => <SettingsForm details={details} />}
      </LoadState>
    </>
  );
}
