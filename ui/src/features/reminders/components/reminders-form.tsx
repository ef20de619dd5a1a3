import { managesAgency } from '@agency/contracts/role-rules';
import styled from '@emotion/styled';
import { FormActions } from '../../../components/form-actions';
import { FieldRow, Fieldset, FormPanel } from '../../../components/form-layout';
import { TextField } from '../../../components/text-field';
import { useCurrentUser } from '../../../lib/current-user';
import { useCommandForm } from '../../../lib/use-command-form';
import { type ReminderSchedule, saveReminderSchedule } from '../api';

type Values = { days: string; lateFee: string };

const Fields = styled.fieldset({ border: 'none', margin: 0, padding: 0, minWidth: 0 });
const Note = styled.p(({ theme }) => ({ color: theme.colors.muted, margin: '0 0 1rem', maxWidth: '44rem' }));

/** The schedule's two fields, disabled for an auditor (who reads them and changes nothing). */
export function RemindersForm({ schedule }: { schedule: ReminderSchedule }) {
  const readOnly = !managesAgency(useCurrentUser().role);
  const { form, onSubmit, failure, saved } = useCommandForm<Values>({
    defaultValues: { days: schedule.days.join(', '), lateFee: schedule.lateFee.toFixed(2) },
    save: async (values, commandId) => {
      await saveReminderSchedule({ ...values, commandId });
    },
  });
  const {
    register,
    formState: { errors, isSubmitting },
  } = form;
  return (
    <FormPanel noValidate onSubmit={onSubmit} aria-label="Payment reminders">
      <Fields disabled={readOnly}>
        <Fieldset>
          <legend>Payment reminders</legend>
          <Note>
            Each family invoice still owed gets one e-mail on each of these days after its due date, never twice. A late
            fee, when set, is charged once per reminder on an invoice of its own: the overdue invoice is never changed.
          </Note>
          <FieldRow>
            <TextField
              id="days"
              label="Days after the due date (blank: no reminders)"
              placeholder="7, 14, 30"
              error={errors.days?.message}
              {...register('days')}
            />
            <TextField
              id="lateFee"
              label="Late fee (£, 0 for none)"
              error={errors.lateFee?.message}
              {...register('lateFee')}
            />
          </FieldRow>
        </Fieldset>
      </Fields>
      {readOnly ? null : (
        <FormActions failure={failure} submitting={isSubmitting} saved={saved} onCancel={() => form.reset()} />
      )}
    </FormPanel>
  );
}
