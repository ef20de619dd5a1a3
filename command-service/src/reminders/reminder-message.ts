import type { AgencyDetails, ProductEvent } from '@agency/contracts';
import { client, displayDate, type familyInvoice, formatPounds } from '@agency/domain';
import type { MailMessage } from '../mail/mailer';
import { workshopMessage } from '../mail/messages';

type Recorded = Extract<ProductEvent, { type: 'FamilyInvoiceReminderRecorded' }>['data'];
type Issued = Exclude<familyInvoice.FamilyInvoiceState, { status: 'none' }>;

/** Whether a family's stream, as recorded up to a reminder, holds its erasure. */
export const erasedIn = (events: readonly { type: string }[]) => events.some((event) => event.type === 'ClientErased');
export const clientStreamOf = (clientId: string) =>
  clientId.startsWith('registration:') ? undefined : client.clientStream(clientId);

/**
 * A reminder's e-mail (docs/reminders.md): which invoice, how much is still owed, since when, the
 * late fee that follows on its own invoice, and how to pay. Built from the invoice as it stood when
 * the reminder was recorded, so a re-run sends the same words.
 */
export function reminderMessage(
  reminder: Recorded,
  invoice: Issued,
  details: AgencyDetails,
  owedPence: number,
): MailMessage {
  const { reference, dueDate, billing } = invoice.invoice;
  const paragraphs = [
    `Our invoice ${reference} for ${formatPounds(invoice.invoice.totalPence)} was due on ${displayDate(dueDate)}, ` +
      `${reminder.daysAfterDue} days ago, and ${formatPounds(owedPence)} of it is still owed.`,
    reminder.lateFee
      ? `As our terms say, a late payment fee of ${formatPounds(reminder.lateFee.amountPence)} is charged: it comes on an invoice of its own.`
      : '',
    `Please pay to ${details.accountName}, ${details.bankName}, sort code ${details.sortCode}, account ${details.accountNumber}, ` +
      `quoting ${reference}. If you have paid in the last few days, thank you, and please ignore this reminder.`,
    details.name,
  ].filter(Boolean);
  return workshopMessage({
    to: billing.email,
    name: billing.name,
    subject: `Reminder ${reminder.step}: invoice ${reference} is overdue`,
    paragraphs,
  });
}
