import type { InvoiceEvent } from '@agency/contracts';
import type { RecordedEvent } from '@agency/platform';
import type pg from 'pg';
import { defineProjection, type RecordedEventOf } from '../projection';
import { type Version, type VersionTable, writeVersions } from '../versions';

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

/** The versions of invoices' rows (052_invoice_versions.sql), for the views as of a past moment. */
const INVOICE_VERSIONS: VersionTable = {
  name: 'invoice_versions',
  key: [['id', 'text']],
  values: [
    ['tutor_id', 'text'],
    ['month', 'text'],
    ['reference', 'text'],
    ['date', 'date'],
    ['lesson_count', 'int'],
    ['earnings_pence', 'bigint'],
    ['commission_pence', 'bigint'],
    ['partner_commission_pence', 'bigint'],
    ['items', 'jsonb'],
    ['confirmed', 'boolean'],
    ['paid_pence', 'bigint'],
    ['void', 'boolean'],
  ],
};

/** An invoice's row as its versions hold it (in INVOICE_VERSIONS' order of values). */
type InvoiceRow = {
  tutorId: string;
  month: string;
  reference: string;
  date: string;
  lessonCount: number;
  earningsPence: number;
  commissionPence: number;
  partnerCommissionPence: number;
  items: string;
  confirmed: boolean;
  paidPence: number;
  void: boolean;
};
const rowValues = (row: InvoiceRow) => [
  row.tutorId,
  row.month,
  row.reference,
  row.date,
  row.lessonCount,
  row.earningsPence,
  row.commissionPence,
  row.partnerCommissionPence,
  row.items,
  row.confirmed,
  row.paidPence,
  row.void,
];

/**
 * Each event's version of the invoice rows it changes, folded from the rows' current versions
 * with the rules the statements above apply: a generation makes a row (unpaid, unconfirmed); a
 * confirmation and a payment change the row of that id, if any; a withdrawal renames the row
 * that is not void yet to `id~reference`, void (the row under the old id is gone). A payment
 * row (invoice_payments) has no versions: no view as of a past moment reads it.
 */
async function invoiceVersions(sql: pg.ClientBase, events: RecordedEventOf<InvoiceEvent>[]) {
  const mine = events.filter((event) => Object.hasOwn(invoicesProjection.handlers, event.type));
  if (mine.length === 0) return;
  // Each invoice's latest version, unless that is its removal (its row renamed by a withdrawal).
  const found = await sql.query(
    `select * from (
       select distinct on (id) id, removed, tutor_id, month, reference, to_char(date, 'YYYY-MM-DD') as date, lesson_count,
              earnings_pence::text, commission_pence::text, partner_commission_pence::text, items::text, confirmed,
              paid_pence::text, void
         from invoice_versions where id = any($1::text[])
        order by id, valid_from_commit desc, valid_from_prepare desc) latest
      where not removed`,
    [[...new Set(mine.map((event) => event.data.invoiceId))]],
  );
  const rows = new Map<string, InvoiceRow>(
    found.rows.map((row) => [
      row.id,
      {
        tutorId: row.tutor_id,
        month: row.month,
        reference: row.reference,
        date: row.date,
        lessonCount: row.lesson_count,
        earningsPence: Number(row.earnings_pence),
        commissionPence: Number(row.commission_pence),
        partnerCommissionPence: Number(row.partner_commission_pence),
        items: row.items,
        confirmed: row.confirmed,
        paidPence: Number(row.paid_pence),
        void: row.void,
      },
    ]),
  );
  const versions: Version[] = [];
  const put = (id: string, row: InvoiceRow, event: RecordedEventOf<InvoiceEvent>) => {
    rows.set(id, row);
    versions.push({ key: [id], values: rowValues(row), event: event as unknown as RecordedEvent });
  };
  for (const event of mine) {
    const id = event.data.invoiceId;
    const row = rows.get(id);
    switch (event.type) {
      case 'InvoiceGenerated': {
        const { data } = event;
        put(
          id,
          {
            tutorId: data.tutorId,
            month: data.month,
            reference: data.reference,
            date: data.date,
            lessonCount: data.lessonCount,
            earningsPence: data.earningsPence,
            commissionPence: data.commissionPence,
            partnerCommissionPence: data.partnerCommissionPence,
            items: JSON.stringify(data.items),
            confirmed: false,
            paidPence: 0,
            void: false,
          },
          event,
        );
        break;
      }
      case 'InvoiceConfirmed':
        if (row) put(id, { ...row, confirmed: true }, event);
        break;
      case 'InvoicePaymentRecorded':
        if (row) put(id, { ...row, paidPence: row.paidPence + event.data.amountPence }, event);
        break;
      case 'InvoiceWithdrawn':
        if (row && !row.void) {
          rows.delete(id);
          versions.push({ key: [id], values: null, event: event as unknown as RecordedEvent });
          put(`${id}~${event.data.reference}`, { ...row, void: true }, event);
        }
        break;
    }
  }
  await writeVersions(sql, INVOICE_VERSIONS, versions);
}

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
  await invoiceVersions(sql, events as unknown as RecordedEventOf<InvoiceEvent>[]);
}

export const invoicesProjection = defineProjection<InvoiceEvent>({
  name: 'invoices',
  version: 3,
  migrations: ['008_invoices.sql', '052_invoice_versions.sql'],
  handlers: {
    InvoiceGenerated: async (sql, event) => {
      await insertInvoices(sql, [event.data]);
      await invoiceVersions(sql, [event]);
    },
    InvoiceConfirmed: async (sql, event) => {
      await confirmInvoices(sql, [event.data.invoiceId]);
      await invoiceVersions(sql, [event]);
    },
    InvoicePaymentRecorded: async (sql, event) => {
      await recordPayments(sql, [event.data]);
      await invoiceVersions(sql, [event]);
    },
    InvoiceWithdrawn: async (sql, event) => {
      await withdraw(sql, event.data);
      await invoiceVersions(sql, [event]);
    },
  },
  applyBatch: applyInvoiceBatch,
});
