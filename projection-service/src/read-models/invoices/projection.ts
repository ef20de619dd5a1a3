import type { InvoiceEvent } from '@agency/contracts';
import type { RecordedEvent } from '@agency/platform';
import type pg from 'pg';
import { defineProjection, type RecordedEventOf } from '../projection';

type Generated = RecordedEventOf<Extract<InvoiceEvent, { type: 'InvoiceGenerated' }>>['data'];
type Payment = RecordedEventOf<Extract<InvoiceEvent, { type: 'InvoicePaymentRecorded' }>>['data'];

/** Any number of new invoices in one statement. */
const insertInvoices = (sql: pg.ClientBase, invoices: Generated[]) =>
  sql.query(
    `insert into invoices (id, tutor_id, month, reference, date, lesson_count, earnings_pence, commission_pence,
                           partner_commission_pence, items)
     select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::date[], $6::int[], $7::bigint[],
       $8::bigint[], $9::bigint[], $10::jsonb[])`,
    [
      invoices.map((invoice) => invoice.invoiceId),
      invoices.map((invoice) => invoice.tutorId),
      invoices.map((invoice) => invoice.month),
      invoices.map((invoice) => invoice.reference),
      invoices.map((invoice) => invoice.date),
      invoices.map((invoice) => invoice.lessonCount),
      invoices.map((invoice) => invoice.earningsPence),
      invoices.map((invoice) => invoice.commissionPence),
      invoices.map((invoice) => invoice.partnerCommissionPence),
      invoices.map((invoice) => JSON.stringify(invoice.items)),
    ],
  );

const confirmInvoices = (sql: pg.ClientBase, invoiceIds: string[]) =>
  sql.query('update invoices set confirmed = true where id = any($1::text[])', [invoiceIds]);

/** Any number of payments in one statement each for the payments and the invoices' paid sums. */
async function recordPayments(sql: pg.ClientBase, payments: Payment[]) {
  const columns = [
    payments.map((payment) => payment.paymentId),
    payments.map((payment) => payment.invoiceId),
    payments.map((payment) => payment.date),
    payments.map((payment) => payment.amountPence),
  ];
  await sql.query(
    `insert into invoice_payments (id, invoice_id, date, amount_pence)
     select * from unnest($1::text[], $2::text[], $3::date[], $4::bigint[])`,
    columns,
  );
  await sql.query(
    `update invoices i set paid_pence = i.paid_pence + paid.amount_pence
       from (select invoice_id, sum(amount_pence) as amount_pence
               from unnest($1::text[], $2::bigint[]) as p (invoice_id, amount_pence) group by invoice_id) paid
      where i.id = paid.invoice_id`,
    [columns[1], columns[3]],
  );
}

const withdraw = (sql: pg.ClientBase, { invoiceId, reference }: { invoiceId: string; reference: string }) =>
  sql.query(`update invoices set void = true, id = id || '~' || $2 where id = $1 and not void`, [invoiceId, reference]);

/**
 * A batch at once, in runs: within a run, each invoice's generation comes before the run's other
 * events of that invoice (its stream's order), so the run's new invoices are inserted first, then
 * its confirmations and its payments (which commute) are applied, one statement each. A
 * withdrawal (which renames its invoice's row), or a generation of an invoice the run has already
 * seen, ends the run; a withdrawal is applied alone, in its place.
 */
async function applyInvoiceBatch(sql: pg.ClientBase, events: RecordedEvent[]) {
  let run = { generated: [] as Generated[], confirmed: [] as string[], payments: [] as Payment[] };
  let seen = new Set<string>();
  const flush = async () => {
    if (run.generated.length > 0) await insertInvoices(sql, run.generated);
    if (run.confirmed.length > 0) await confirmInvoices(sql, run.confirmed);
    if (run.payments.length > 0) await recordPayments(sql, run.payments);
    run = { generated: [], confirmed: [], payments: [] };
    seen = new Set();
  };
  for (const event of events as unknown as RecordedEventOf<InvoiceEvent>[]) {
    switch (event.type) {
      case 'InvoiceGenerated':
        if (seen.has(event.data.invoiceId)) await flush();
        run.generated.push(event.data);
        break;
      case 'InvoiceConfirmed':
        run.confirmed.push(event.data.invoiceId);
        break;
      case 'InvoicePaymentRecorded':
        run.payments.push(event.data);
        break;
      case 'InvoiceWithdrawn':
        await flush();
        await withdraw(sql, event.data);
        break;
      default:
        continue;
    }
    seen.add(event.data.invoiceId);
  }
  await flush();
}

export const invoicesProjection = defineProjection<InvoiceEvent>({
  name: 'invoices',
  version: 2,
  migrations: ['008_invoices.sql'],
  handlers: {
    InvoiceGenerated: (sql, { data }) => insertInvoices(sql, [data]),
    InvoiceConfirmed: (sql, { data: { invoiceId } }) => confirmInvoices(sql, [invoiceId]),
    InvoicePaymentRecorded: (sql, { data }) => recordPayments(sql, [data]),
    InvoiceWithdrawn: (sql, { data }) => withdraw(sql, data),
  },
  applyBatch: applyInvoiceBatch,
});
