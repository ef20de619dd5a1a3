import styled from '@emotion/styled';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { useCommandIds } from '../lib/command-id';
import { useAgencyToday } from '../lib/current-user';
import { errorMessage, HttpError } from '../lib/http';
import { Button } from './button';
import { DateField } from './date-field';
import { FieldError } from './field';
import { TextField } from './text-field';

const Form = styled.form({
  display: 'flex',
  flexWrap: 'wrap',
  alignItems: 'flex-end',
  gap: '0.5rem',
  padding: '0.25rem 0',
  '& > div': { marginBottom: 0, minWidth: '11rem' },
});

export type PaymentValues = { date: string; amount: string };

/** '1,234.50', '£12' → '1234.50', '12'; the server reads the same forms. */
const plainAmount = (value: string) => value.trim().replace(/^£/, '').replace(/[,\s]/g, '');

/**
 * An admin records money received against an invoice (a tutor's or a family's): date and amount,
 * the amount still owed offered. Part payments are allowed; the server refuses more than is owed
 * with a message under the amount.
 */
export function RecordPaymentForm({
  id,
  label,
  outstanding,
  record,
  onCancel,
  onRecorded,
}: {
  /** The form's id (a row's button controls it). */
  id: string;
  /** The form's accessible name, e.g. "Payment for OTA00012". */
  label: string;
  /** Pounds still owed, offered as the amount. */
  outstanding: number;
  record: (payment: PaymentValues & { commandId: string }) => Promise<unknown>;
  onCancel: () => void;
  onRecorded: () => void;
}) {
  const commandIds = useCommandIds();
  const [failure, setFailure] = useState<string | null>(null);
  const today = useAgencyToday();
  const {
    register,
    handleSubmit,
    setError,
    formState: { errors, isSubmitting },
  } = useForm<PaymentValues>({
    mode: 'onTouched',
    defaultValues: { date: today, amount: outstanding > 0 ? outstanding.toFixed(2) : '' },
  });

  const onSubmit = handleSubmit(async (values) => {
    setFailure(null);
    const payment = { date: values.date, amount: plainAmount(values.amount) };
    const action = JSON.stringify(payment);
    try {
      await record({ ...payment, commandId: commandIds.idFor(action) });
      commandIds.done(action);
      onRecorded();
    } catch (error) {
      commandIds.done(action, error);
      if (error instanceof HttpError && error.fields) {
        for (const name of ['date', 'amount'] as const) {
          const message = error.fields[name];
          if (message) setError(name, { message });
        }
      }
      setFailure(errorMessage(error));
    }
  });

  return (
    <Form id={id} noValidate onSubmit={onSubmit} aria-label={label}>
      <DateField
        id={`${id}-date`}
        label="Payment date"
        required
        error={errors.date?.message}
        {...register('date', { validate: (value) => value !== '' || 'Date is required' })}
      />
      <TextField
        id={`${id}-amount`}
        label="Amount"
        inputMode="decimal"
        required
        error={errors.amount?.message}
        {...register('amount', {
          validate: (value) => {
            const text = plainAmount(value);
            if (text === '') return 'Amount is required';
            if (!/^\d+(\.\d{1,2})?$/.test(text)) return 'Amount must be in pounds and pence, e.g. 12.50';
            return Number(text) > 0 || 'Amount must be more than 0';
          },
        })}
      />
      <Button type="submit" disabled={isSubmitting}>
        Save
      </Button>
      <Button type="button" variant="secondary" onClick={onCancel}>
        Cancel
      </Button>
      {failure ? <FieldError role="alert">{failure}</FieldError> : null}
    </Form>
  );
}
