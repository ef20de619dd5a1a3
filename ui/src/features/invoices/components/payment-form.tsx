import { RecordPaymentForm } from '../../../components/record-payment-form';
import { type InvoiceRow, recordPayment } from '../api';

export const paymentFormId = (invoice: InvoiceRow) => `payment-${invoice.id}`;

/** An admin records money received against a tutor's invoice: date and amount, under the invoice's row. */
export function PaymentForm({
  invoice,
  onCancel,
  onRecorded,
}: {
  invoice: InvoiceRow;
  onCancel: () => void;
  onRecorded: () => void;
}) {
  return (
    <RecordPaymentForm
      id={paymentFormId(invoice)}
      label={`Payment for ${invoice.reference}`}
      outstanding={Math.max(invoice.commission - invoice.paid, 0)}
      record={(payment) => recordPayment({ invoiceId: invoice.id, ...payment })}
      onCancel={onCancel}
      onRecorded={onRecorded}
    />
  );
}
