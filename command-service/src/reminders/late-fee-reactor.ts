import type { ProductEvent } from '@agency/contracts';
import { familyInvoice, fold, reminder } from '@agency/domain';
import { comparePositions, type EventStore, type RecordedEvent } from '@agency/platform';
import type { FamilyInvoicing } from '../family-invoices/family-invoicing';
import type { Reactor } from '../reactors/reactor';

export const LATE_FEES_REACTOR = 'late-fees';

type Recorded = Extract<ProductEvent, { type: 'FamilyInvoiceReminderRecorded' }>['data'];

/**
 * A reminder that carries a late fee is followed by the fee's own family invoice (docs/reminders.md):
 * never an edit of the overdue invoice, which stays as it was issued. The fee invoice's id derives
 * from the invoice and the step, and its number is taken for that id, so however often this runs
 * the fee is charged once. It is issued as things stood when the reminder was recorded: an invoice
 * paid or credited before that (a race with the chore) gets no fee.
 */
export function lateFeeReactor({ store, invoicing }: { store: EventStore; invoicing: FamilyInvoicing }): Reactor {
  const { familyInvoiceDecider, familyInvoiceStream } = familyInvoice;
  return {
    name: LATE_FEES_REACTOR,
    handles: ['FamilyInvoiceReminderRecorded'],
    async react(event: RecordedEvent, act) {
      const data = event.data as Recorded;
      if (!data.lateFee) return;
      const asRecorded = (await store.readStream(familyInvoiceStream(data.invoiceId)))
        .filter((recorded) => comparePositions(recorded.position, event.position) <= 0)
        .map((recorded) => ({ type: recorded.type, data: recorded.data }) as never);
      const invoice = fold(familyInvoiceDecider, asRecorded);
      if (invoice.status === 'none' || familyInvoice.outstandingOf(invoice) === 0) return;
      const { reference, dueDate, billing, clientId } = invoice.invoice;
      await invoicing.issue(act(data.lateFee.invoiceId), {
        invoiceId: data.lateFee.invoiceId,
        clientId,
        billedFor: { kind: 'late-fee', id: data.invoiceId },
        lines: [
          {
            description: reminder.lateFeeLine(reference, data.step, data.daysAfterDue, dueDate),
            amountPence: data.lateFee.amountPence,
          },
        ],
        billing,
      });
    },
  };
}
