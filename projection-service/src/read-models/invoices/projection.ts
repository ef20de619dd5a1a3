import type { InvoiceEvent } from '@agency/contracts';
import { defineProjection } from '../projection';

export const invoicesProjection = defineProjection<InvoiceEvent>({
  name: 'invoices',
  version: 2,
  migrations: ['008_invoices.sql'],
  handlers: {
    InvoiceGenerated: (sql, { data: invoice }) =>
      sql.query(
        `insert into invoices (id, tutor_id, month, reference, date, lesson_count, earnings_pence, commission_pence,
                               partner_commission_pence, items)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [
          invoice.invoiceId,
          invoice.tutorId,
          invoice.month,
          invoice.reference,
          invoice.date,
          invoice.lessonCount,
          invoice.earningsPence,
          invoice.commissionPence,
          invoice.partnerCommissionPence,
          JSON.stringify(invoice.items),
        ],
      ),
    InvoiceConfirmed: (sql, { data: { invoiceId } }) =>
      sql.query('update invoices set confirmed = true where id = $1', [invoiceId]),
    InvoicePaymentRecorded: async (sql, { data: { invoiceId, paymentId, date, amountPence } }) => {
      await sql.query('insert into invoice_payments (id, invoice_id, date, amount_pence) values ($1, $2, $3, $4)', [
        paymentId,
        invoiceId,
        date,
        amountPence,
      ]);
      return sql.query('update invoices set paid_pence = paid_pence + $2 where id = $1', [invoiceId, amountPence]);
    },
    InvoiceWithdrawn: (sql, { data: { invoiceId, reference } }) =>
      sql.query(`update invoices set void = true, id = id || '~' || $2 where id = $1 and not void`, [
        invoiceId,
        reference,
      ]),
  },
});
