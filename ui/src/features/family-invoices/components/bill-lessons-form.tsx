import styled from '@emotion/styled';
import dayjs from 'dayjs';
import { useState } from 'react';
import { FormActions } from '../../../components/form-actions';
import { FieldRow, Fieldset, FormPanel } from '../../../components/form-layout';
import { TextField } from '../../../components/text-field';
import { useCommandForm } from '../../../lib/use-command-form';
import { billLessons } from '../api';

type Values = { month: string };

const Note = styled.p(({ theme }) => ({ color: theme.colors.muted, margin: '0 0 1rem', maxWidth: '44rem' }));

/**
 * "Bill lessons for a month" (admins): every family with lessons the agency sells, or introduces,
 * in the month gets one invoice, however often this is asked; lessons changed after their month
 * was billed follow as adjustment lines on the next one (docs/money-models.md).
 */
export function BillLessonsForm({ today, onBilled }: { today: string; onBilled: () => void }) {
  const [answer, setAnswer] = useState<string | null>(null);
  const { form, onSubmit, failure } = useCommandForm<Values>({
    defaultValues: { month: dayjs(today).subtract(1, 'month').format('YYYY-MM') },
    save: async (values, commandId) => {
      const billed = await billLessons({ month: values.month, commandId });
      setAnswer(
        billed.underWay
          ? `Billing ${billed.month} is under way: the invoices appear here as they are issued.`
          : `${billed.month} is billed: each family's invoice is in the list.`,
      );
      onBilled();
    },
  });
  const {
    register,
    formState: { errors, isSubmitting },
  } = form;
  return (
    <FormPanel noValidate onSubmit={onSubmit} aria-label="Bill lessons for a month">
      <Fieldset>
        <legend>Bill lessons for a month</legend>
        <Note>
          Each family with lessons the agency sells or introduces gets one invoice for the month, never two. Lessons
          changed after their month was billed show as adjustments on the family&rsquo;s next invoice.
        </Note>
        <FieldRow>
          <TextField
            id="billing-month"
            label="Month (yyyy-mm)"
            placeholder="2026-03"
            error={errors.month?.message}
            {...register('month', {
              pattern: { value: /^\d{4}-(0[1-9]|1[0-2])$/, message: 'Use a month like 2026-03' },
            })}
          />
        </FieldRow>
      </Fieldset>
      <div role="status">{answer && !failure ? <Note>{answer}</Note> : null}</div>
      <FormActions
        failure={failure}
        submitting={isSubmitting}
        submitLabel="Bill lessons"
        onCancel={() => {
          setAnswer(null);
          form.reset();
        }}
      />
    </FormPanel>
  );
}
