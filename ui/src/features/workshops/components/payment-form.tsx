import { useState } from 'react';
import { Button } from '../../../components/button';
import { DateField } from '../../../components/date-field';
import { FieldRow } from '../../../components/form-layout';
import { TextField } from '../../../components/text-field';
import { useAgencyToday } from '../../../lib/current-user';
import { recordPayment } from '../api';
import { useAction } from '../use-action';

/** Record a payment on a registration's invoice; `onPaid` reloads the registration. */
export function PaymentForm({ invoiceId, onPaid }: { invoiceId: string; onPaid: () => void }) {
  const [amount, setAmount] = useState('');
  const [date, setDate] = useState(useAgencyToday());
  const paid = { invoiceId, date, amount: amount.replace(/^£/, '') };
  const pay = useAction(
    () => JSON.stringify(paid),
    async (commandId) => {
      await recordPayment({ ...paid, commandId });
      onPaid();
    },
  );
  return (
    <form
      aria-label="Record payment"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        void pay.run();
      }}
    >
      <FieldRow>
        <TextField
          id="paymentAmount"
          label="Amount Paid (£)"
          inputMode="decimal"
          value={amount}
          error={pay.failure ?? undefined}
          onChange={(event) => setAmount(event.target.value)}
        />
        <DateField id="paymentDate" label="Date Paid" value={date} onChange={(event) => setDate(event.target.value)} />
      </FieldRow>
      <Button type="submit" disabled={pay.busy}>
        Record Payment
      </Button>
    </form>
  );
}
