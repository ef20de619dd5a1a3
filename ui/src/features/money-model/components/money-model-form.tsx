import { managesAgency } from '@agency/contracts/role-rules';
import styled from '@emotion/styled';
import { Checkbox } from '../../../components/checkbox';
import { FormActions } from '../../../components/form-actions';
import { FieldRow, Fieldset, FormPanel } from '../../../components/form-layout';
import { Select } from '../../../components/select';
import { TextField } from '../../../components/text-field';
import { useCurrentUser } from '../../../lib/current-user';
import {
  type AgencyMoneyModelAnswer,
  MODEL_OPTIONS,
  type MoneyModel,
  saveAgencyMoneyModel,
} from '../../../lib/money-models';
import { useCommandForm } from '../../../lib/use-command-form';
import { required } from '../../../lib/validation';

type Values = { model: MoneyModel; from: string; vatRate: string; payAfterFamilyPays: boolean };

const Fields = styled.fieldset({ border: 'none', margin: 0, padding: 0, minWidth: 0 });
const Note = styled.p(({ theme }) => ({ color: theme.colors.muted, margin: '0 0 1rem', maxWidth: '44rem' }));

const VAT_OPTIONS = [
  { value: '0', label: 'Exempt (0 %)' },
  { value: '20', label: 'Standard rate (20 %)' },
];

/**
 * A change of the agency's model from a month on: this month at the earliest (a month already
 * billed never changes). Disabled for an auditor, who reads and changes nothing.
 */
export function MoneyModelForm({ current, onSaved }: { current: AgencyMoneyModelAnswer; onSaved: () => void }) {
  const readOnly = !managesAgency(useCurrentUser().role);
  const { form, onSubmit, failure, saved } = useCommandForm<Values>({
    defaultValues: {
      model: current.inForce.model,
      from: current.today.slice(0, 7),
      vatRate: String(current.inForce.vatRate),
      payAfterFamilyPays: current.inForce.payAfterFamilyPays,
    },
    save: async (values, commandId) => {
      await saveAgencyMoneyModel({ ...values, commandId });
      onSaved();
    },
  });
  const {
    register,
    formState: { errors, isSubmitting },
  } = form;
  return (
    <FormPanel noValidate onSubmit={onSubmit} aria-label="Change the money model">
      <Fields disabled={readOnly}>
        <Fieldset>
          <legend>Change from a month on</legend>
          <Note>
            A change applies from the first day of the month chosen, never to an earlier month: documents already issued
            keep what they say. VAT is charged on the whole fee only when the agency sells the tuition.
          </Note>
          <FieldRow>
            <Select
              id="model"
              label="Money model"
              options={MODEL_OPTIONS}
              error={errors.model?.message}
              {...register('model')}
            />
            <TextField
              id="from"
              type="month"
              label="From (month)"
              required
              error={errors.from?.message}
              {...register('from', { validate: required('A month is required') })}
            />
            <Select
              id="vatRate"
              label="VAT"
              options={VAT_OPTIONS}
              error={errors.vatRate?.message}
              {...register('vatRate')}
            />
          </FieldRow>
          <Checkbox
            id="payAfterFamilyPays"
            label="Pay a lesson only once the family's invoice that holds it is paid"
            {...register('payAfterFamilyPays')}
          />
        </Fieldset>
      </Fields>
      {readOnly ? null : (
        <FormActions failure={failure} submitting={isSubmitting} saved={saved} onCancel={() => form.reset()} />
      )}
    </FormPanel>
  );
}
