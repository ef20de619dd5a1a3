import type { ReminderEvent } from '@agency/contracts';
import { defineProjection } from '../projection';

export const remindersProjection = defineProjection<ReminderEvent>({
  name: 'reminders',
  version: 1,
  migrations: ['080_reminders.sql'],
  handlers: {
    ReminderScheduleSet: (sql, { data }) =>
      sql.query(
        `insert into reminder_schedule (id, days, late_fee_pence) values (1, $1, $2)
         on conflict (id) do update set days = excluded.days, late_fee_pence = excluded.late_fee_pence`,
        [data.days, data.lateFeePence],
      ),
    FamilyInvoiceReminderRecorded: (sql, { data }) =>
      sql.query(
        `insert into family_invoice_reminders (invoice_id, step, client_id, days_after_due, date, outstanding_pence,
                                               late_fee_invoice_id, late_fee_pence)
         values ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [
          data.invoiceId,
          data.step,
          data.clientId,
          data.daysAfterDue,
          data.date,
          data.outstandingPence,
          data.lateFee?.invoiceId ?? null,
          data.lateFee?.amountPence ?? null,
        ],
      ),
  },
});
