import type { InvoiceConfirmed, InvoiceGenerated, InvoicePaymentRecorded } from '@agency/contracts';
import type { z } from 'zod';
import type { Projection } from './projection';

type Data<D extends { schema: z.ZodType }> = z.infer<D['schema']>;

export const invoicesProjection: Projection = {
  name: 'invoices',
  version: 1,
  migrations: ['008_invoices.sql'],
  handlers: {
    InvoiceGenerated: (sql, { data }) => {
      const invoice = data as Data<typeof InvoiceGenerated>;
      return sql.query(
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
      );
    },
    InvoiceConfirmed: (sql, { data }) => {
      const { invoiceId } = data as Data<typeof InvoiceConfirmed>;
      return sql.query('update invoices set confirmed = true where id = $1', [invoiceId]);
    },
    InvoicePaymentRecorded: async (sql, { data }) => {
      const { invoiceId, paymentId, date, amountPence } = data as Data<typeof InvoicePaymentRecorded>;
      await sql.query('insert into invoice_payments (id, invoice_id, date, amount_pence) values ($1, $2, $3, $4)', [
        paymentId,
        invoiceId,
        date,
        amountPence,
      ]);
      return sql.query('update invoices set paid_pence = paid_pence + $2 where id = $1', [invoiceId, amountPence]);
    },
  },
};
