import { ERASED, type SessionUser } from '@agency/contracts';
import { familyInvoice, reminder, todayIn } from '@agency/domain';
import type pg from 'pg';
import { type CommandDependencies, createCommandContext, derivedId } from '../pipeline/command-pipeline';
import { clientStreamOf, erasedIn } from './reminder-message';

/** Who records a reminder: nobody signed in; the chore does it when an invoice's day has come. */
const REMINDER_CHORE = { id: 'family-invoice-reminders', username: 'system', role: 'admin' } as unknown as SessionUser;

/** How many invoices one run looks at: the rest wait for the next run (a minute later). */
const BATCH = 200;

/** The late fee's invoice for an invoice's reminder step: one id per invoice and step, however often it runs. */
export const lateFeeInvoiceIdOf = (invoiceId: string, step: number) => derivedId('late-fee', invoiceId, step);

/**
 * The chore that records reminders of overdue family invoices (docs/reminders.md). The read model
 * only says which invoices may be due; each one's own stream decides (unpaid, not credited, its due
 * date), and the reminder is recorded on the invoice's reminder stream at its expected revision,
 * with event ids derived from the invoice and the step: two instances, a restart or a retry record
 * each step once. What follows (the e-mail, the late fee) is done by reactors from that event.
 */
export function familyInvoiceReminders(options: { deps: CommandDependencies; db: pg.Pool; timeZone: string }) {
  const { deps, db, timeZone } = options;
  const { familyInvoiceDecider, familyInvoiceStream } = familyInvoice;
  /** Answers how many reminders it asked for (a step another runner recorded first counts too). */
  return async function sendReminders(): Promise<number> {
    const now = deps.clock();
    const today = todayIn(timeZone, now);
    const look = createCommandContext(deps, REMINDER_CHORE, derivedId('reminder-look', today), 'reminders').context;
    const schedule = await look.load(reminder.scheduleStream(), reminder.scheduleDecider);
    const first = schedule.days[0];
    if (first === undefined) return 0;
    // Only invoices behind on their steps (so a batch is never filled by ones already reminded), and
    // late fees are not chased themselves: no fee on a fee.
    const { rows } = await db.query<{ id: string }>(
      `select f.id from read.family_invoices f
        where f.credit_note_id is null and f.paid_pence < f.total_pence and f.billed_kind <> 'late-fee'
          and f.due_date + $1::int <= $2::date and f.billing->>'email' <> $4
          and (select count(*) from unnest($3::int[]) as day where f.due_date + day <= $2::date)
              > coalesce((select max(r.step) from read.family_invoice_reminders r where r.invoice_id = f.id), 0)
        order by f.due_date, f.id limit ${BATCH}`,
      [first, today, schedule.days, ERASED],
    );
    let asked = 0;
    for (const { id } of rows) {
      const invoice = await look.load(familyInvoiceStream(id), familyInvoiceDecider);
      if (invoice.status === 'none' || invoice.creditNote || invoice.invoice.billedFor.kind === 'late-fee') continue;
      const outstandingPence = familyInvoice.outstandingOf(invoice);
      if (outstandingPence === 0) continue;
      const state = await look.load(reminder.remindersStream(id), reminder.remindersDecider);
      const due = reminder.dueStep(schedule.days, invoice.invoice.dueDate, today, reminder.lastStepOf(state));
      if (!due) continue;
      // An erased family is not chased: its billing details are an accounting copy, not an address to write to.
      const family = clientStreamOf(invoice.invoice.clientId);
      if (family && erasedIn(await deps.store.readStream(family))) continue;
      // One command per invoice and step: every runner of it names the same events.
      const commandId = derivedId('family-invoice-reminder', id, due.step);
      const { run } = createCommandContext(deps, REMINDER_CHORE, commandId, commandId, now).context;
      await run(reminder.remindersStream(id), reminder.remindersDecider, {
        type: 'RecordReminder',
        reminder: {
          invoiceId: id,
          clientId: invoice.invoice.clientId,
          step: due.step,
          daysAfterDue: due.daysAfterDue,
          date: today,
          dueDate: invoice.invoice.dueDate,
          outstandingPence,
          lateFee:
            schedule.lateFeePence > 0
              ? { invoiceId: lateFeeInvoiceIdOf(id, due.step), amountPence: schedule.lateFeePence }
              : null,
        },
      });
      asked++;
    }
    return asked;
  };
}
