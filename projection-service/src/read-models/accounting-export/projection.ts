import {
  type AgencyEvent,
  type ClientEvent,
  ERASED,
  type FamilyInvoiceEvent,
  type InvoiceEvent,
  type WorkshopEvent,
} from '@agency/contracts';
import { addDays, formatPounds } from '@agency/domain';
import type { RecordedEvent } from '@agency/platform';
import type pg from 'pg';
import { defineProjection, type RecordedEventOf } from '../projection';

type Row = {
  rowId: string;
  part: 'sales' | 'payments';
  source: 'family' | 'tutor';
  documentId: string;
  lineNo: number;
  docNumber: string;
  againstNumber: string | null;
  contactId: string;
  contactName: string | null;
  contactEmail: string | null;
  date: string;
  dueDate: string;
  description: string;
  amountPence: number;
  /** The line's VAT and its rate (0 but on a lessons invoice the agency sells with VAT). */
  vatPence?: number;
  vatRateBp?: number;
};

/** Its columns, in the order `insertRows` sends them. */
const rowColumns = (event: Pick<RecordedEvent, 'position'>, row: Row) => [
  row.rowId,
  row.part,
  row.source,
  row.documentId,
  row.lineNo,
  row.docNumber,
  row.againstNumber,
  row.contactId,
  row.contactName,
  row.contactEmail,
  row.date,
  row.dueDate,
  row.description,
  row.amountPence,
  event.position.commit.toString(),
  event.position.prepare.toString(),
  row.vatPence ?? 0,
  row.vatRateBp ?? 0,
];
const ROW_TYPES = [
  'text',
  'text',
  'text',
  'text',
  'int',
  'text',
  'text',
  'text',
  'text',
  'text',
  'date',
  'date',
  'text',
]
  .concat(['bigint', 'bigint', 'bigint', 'bigint', 'int'])
  .map((type, i) => `$${i + 1}::${type}[]`)
  .join(', ');

/** Any number of rows, each with the position of the event that recorded it, in one statement. */
async function insertRows(sql: pg.ClientBase, rows: { event: Pick<RecordedEvent, 'position'>; row: Row }[]) {
  if (rows.length === 0) return;
  const values = rows.map(({ event, row }) => rowColumns(event, row));
  await sql.query(
    `insert into accounting_rows (row_id, part, source, document_id, line_no, doc_number, against_number, contact_id,
                                  contact_name, contact_email, date, due_date, description, amount_pence,
                                  commit_position, prepare_position, vat_pence, vat_rate_bp)
     select * from unnest(${ROW_TYPES})`,
    ROW_TYPES.split(', ').map((_, i) => values.map((columns) => columns[i])),
  );
}

const insert = (sql: pg.ClientBase, event: Pick<RecordedEvent, 'position'>, rows: Row[]) =>
  insertRows(
    sql,
    rows.map((row) => ({ event, row })),
  );

type Generated = Extract<InvoiceEvent, { type: 'InvoiceGenerated' }>['data'];

/** A sales row as a credit note or a payment reads it (amounts as the database gives bigints, or numbers). */
type SalesRow = {
  doc_number: string;
  contact_id: string;
  contact_name: string | null;
  contact_email: string | null;
  description: string;
  amount_pence: string | number;
  vat_pence: string | number;
  vat_rate_bp: number;
};
const SALES_COLUMNS =
  'doc_number, contact_id, contact_name, contact_email, description, amount_pence, vat_pence, vat_rate_bp';

/**
 * What the handlers read and write besides the rows they add: event by event, straight in the
 * tables (`tablesOf`); a batch at once, through what the batch read first and writes at the end
 * (`BatchBooks`). The rules are written once, in `record`.
 */
type Books = {
  draft(invoiceId: string): Promise<Generated | undefined>;
  putDraft(generated: Generated): Promise<void>;
  dropDraft(invoiceId: string): Promise<void>;
  termsDays(): Promise<number>;
  setTerms(days: number): Promise<void>;
  /** A document's sales rows, by line. */
  salesRows(documentId: string): Promise<SalesRow[]>;
  /** The document of a tutor's invoice's latest sale (`invoice~reference`), if any. */
  latestTutorSale(invoiceId: string): Promise<string | undefined>;
  insert(event: Pick<RecordedEvent, 'position'>, rows: Row[]): Promise<void>;
  erase(contactId: string): Promise<void>;
};

const prefixOf = (invoiceId: string) => `${invoiceId}~`;

function tablesOf(sql: pg.ClientBase): Books {
  return {
    draft: async (invoiceId) =>
      (await sql.query('select generated from accounting_tutor_drafts where invoice_id = $1', [invoiceId])).rows[0]
        ?.generated,
    putDraft: async (generated) => {
      await sql.query(
        `insert into accounting_tutor_drafts (invoice_id, generated) values ($1, $2)
         on conflict (invoice_id) do update set generated = excluded.generated`,
        [generated.invoiceId, JSON.stringify(generated)],
      );
    },
    dropDraft: async (invoiceId) => {
      await sql.query('delete from accounting_tutor_drafts where invoice_id = $1', [invoiceId]);
    },
    termsDays: async () =>
      (await sql.query('select payment_terms_days from accounting_terms where id = 1')).rows[0]?.payment_terms_days ??
      0,
    setTerms: async (days) => {
      await sql.query(
        `insert into accounting_terms (id, payment_terms_days) values (1, $1)
         on conflict (id) do update set payment_terms_days = excluded.payment_terms_days`,
        [days],
      );
    },
    salesRows: async (documentId) =>
      (
        await sql.query(
          `select ${SALES_COLUMNS} from accounting_rows where document_id = $1 and part = 'sales' order by line_no`,
          [documentId],
        )
      ).rows,
    // By byte order (the document index's): every id that begins `invoice~` and no other.
    latestTutorSale: async (invoiceId) =>
      (
        await sql.query(
          `select document_id from accounting_rows
            where source = 'tutor' and part = 'sales' and document_id ~>=~ $1 and document_id ~<~ $2
            order by commit_position desc, prepare_position desc limit 1`,
          [prefixOf(invoiceId), `${invoiceId}\x7f`],
        )
      ).rows[0]?.document_id,
    insert: (event, rows) => insert(sql, event, rows),
    erase: async (contactId) => {
      await sql.query('update accounting_rows set contact_name = $2, contact_email = $2 where contact_id = $1', [
        contactId,
        ERASED,
      ]);
    },
  };
}

/**
 * The books of a batch: the drafts, the terms and the sales rows its events will read, read in
 * three statements first; what it writes kept here and written at the end (`flush`), a row insert
 * and the drafts in one statement each. An erasure (rare) writes everything first and updates the
 * rows in place, as event by event. A read nothing was read for asks the tables, written first.
 */
class BatchBooks implements Books {
  private readonly drafts = new Map<string, Generated | null>();
  private readonly touchedDrafts = new Set<string>();
  private terms: number | undefined;
  private termsChanged = false;
  private readonly sales = new Map<string, SalesRow[]>();
  private readonly latest = new Map<string, string | undefined>();
  private rows: { event: Pick<RecordedEvent, 'position'>; row: Row }[] = [];
  private readonly tables: Books;

  constructor(private readonly sql: pg.ClientBase) {
    this.tables = tablesOf(sql);
  }

  async preload(events: RecordedEvent[]) {
    const ids = (types: string[]) => [
      ...new Set(
        events
          .filter((event) => types.includes(event.type))
          .map((event) => (event.data as { invoiceId: string }).invoiceId),
      ),
    ];
    const tutorInvoices = ids(['InvoiceGenerated', 'InvoiceWithdrawn', 'InvoiceConfirmed', 'InvoicePaymentRecorded']);
    const drafts = await this.sql.query(
      'select invoice_id, generated from accounting_tutor_drafts where invoice_id = any($1::text[])',
      [tutorInvoices],
    );
    for (const id of tutorInvoices) this.drafts.set(id, null);
    for (const row of drafts.rows) this.drafts.set(row.invoice_id, row.generated);
    this.terms = await this.tables.termsDays();
    const paid = ids(['InvoicePaymentRecorded']);
    const latest = await this.sql.query(
      `select p.invoice_id, d.document_id from unnest($1::text[]) as p (invoice_id)
         left join lateral (
           select document_id from accounting_rows
            where source = 'tutor' and part = 'sales'
              and document_id ~>=~ (p.invoice_id || '~') and document_id ~<~ (p.invoice_id || chr(127))
            order by commit_position desc, prepare_position desc limit 1) d on true`,
      [paid],
    );
    for (const row of latest.rows) this.latest.set(row.invoice_id, row.document_id ?? undefined);
    const documents = [
      ...ids(['FamilyCreditNoteIssued', 'FamilyInvoicePaymentRecorded']),
      ...latest.rows.flatMap((row) => (row.document_id ? [row.document_id as string] : [])),
    ];
    const sales = await this.sql.query(
      `select document_id, ${SALES_COLUMNS} from accounting_rows
        where document_id = any($1::text[]) and part = 'sales' order by document_id, line_no`,
      [documents],
    );
    for (const id of documents) this.sales.set(id, []);
    for (const { document_id, ...row } of sales.rows) this.sales.get(document_id)?.push(row);
  }

  async draft(invoiceId: string) {
    if (!this.drafts.has(invoiceId)) {
      await this.flush();
      this.drafts.set(invoiceId, (await this.tables.draft(invoiceId)) ?? null);
    }
    return this.drafts.get(invoiceId) ?? undefined;
  }
  async putDraft(generated: Generated) {
    this.drafts.set(generated.invoiceId, generated);
    this.touchedDrafts.add(generated.invoiceId);
  }
  async dropDraft(invoiceId: string) {
    this.drafts.set(invoiceId, null);
    this.touchedDrafts.add(invoiceId);
  }
  async termsDays() {
    this.terms ??= await this.tables.termsDays();
    return this.terms;
  }
  async setTerms(days: number) {
    this.terms = days;
    this.termsChanged = true;
  }
  async salesRows(documentId: string) {
    if (!this.sales.has(documentId)) {
      await this.flush();
      this.sales.set(documentId, await this.tables.salesRows(documentId));
    }
    return this.sales.get(documentId) ?? [];
  }
  async latestTutorSale(invoiceId: string) {
    if (!this.latest.has(invoiceId)) {
      await this.flush();
      this.latest.set(invoiceId, await this.tables.latestTutorSale(invoiceId));
    }
    return this.latest.get(invoiceId);
  }
  async insert(event: Pick<RecordedEvent, 'position'>, rows: Row[]) {
    for (const row of rows) {
      this.rows.push({ event, row });
      if (row.part !== 'sales') continue;
      // What was read is kept current, and a document recorded here is known whole: its rows all
      // come from the one event that records it, in line order (their ids, `document:line`, are
      // unique). Another document or invoice nothing was read for is asked of the tables.
      const cached = this.sales.get(row.documentId);
      if (cached) cached.push(salesRowOf(row));
      else if (row.lineNo === 1) this.sales.set(row.documentId, [salesRowOf(row)]);
      const invoiceId = row.documentId.slice(0, row.documentId.indexOf('~'));
      if (row.source === 'tutor' && this.latest.has(invoiceId)) this.latest.set(invoiceId, row.documentId);
    }
  }
  async erase(contactId: string) {
    await this.flush();
    await this.tables.erase(contactId);
    for (const rows of this.sales.values()) {
      for (const row of rows) {
        if (row.contact_id !== contactId) continue;
        row.contact_name = ERASED;
        row.contact_email = ERASED;
      }
    }
  }

  async flush() {
    await insertRows(this.sql, this.rows);
    this.rows = [];
    if (this.termsChanged) await this.tables.setTerms(this.terms ?? 0);
    this.termsChanged = false;
    if (this.touchedDrafts.size === 0) return;
    const touched = [...this.touchedDrafts];
    this.touchedDrafts.clear();
    await this.sql.query('delete from accounting_tutor_drafts where invoice_id = any($1::text[])', [touched]);
    const kept = touched.flatMap((id) => {
      const generated = this.drafts.get(id);
      return generated ? [generated] : [];
    });
    await this.sql.query(
      'insert into accounting_tutor_drafts (invoice_id, generated) select * from unnest($1::text[], $2::jsonb[])',
      [kept.map((generated) => generated.invoiceId), kept.map((generated) => JSON.stringify(generated))],
    );
  }
}

const salesRowOf = (row: Row): SalesRow => ({
  doc_number: row.docNumber,
  contact_id: row.contactId,
  contact_name: row.contactName,
  contact_email: row.contactEmail,
  description: row.description,
  amount_pence: row.amountPence,
  vat_pence: row.vatPence ?? 0,
  vat_rate_bp: row.vatRateBp ?? 0,
});

/**
 * A tutor's generated invoice becomes a sale once final: confirmed, or paid (then it can no longer
 * be withdrawn), whichever comes first; its rows carry that event's position.
 */
async function recordSale(books: Books, event: Pick<RecordedEvent, 'position'>, invoiceId: string) {
  const generated = await books.draft(invoiceId);
  if (!generated) return;
  const dueDate = addDays(generated.date, await books.termsDays());
  await books.dropDraft(generated.invoiceId);
  // A final invoice's id is its reference's: the month's id may be used again after a withdrawal.
  const documentId = `${generated.invoiceId}~${generated.reference}`;
  await books.insert(
    event,
    generated.items.map((item, index) => ({
      rowId: `${documentId}:${index + 1}`,
      part: 'sales',
      source: 'tutor',
      documentId,
      lineNo: index + 1,
      docNumber: generated.reference,
      againstNumber: null,
      contactId: generated.tutorId,
      contactName: null,
      contactEmail: null,
      date: generated.date,
      dueDate,
      description: `Commission ${generated.month}: ${item.commissionBp / 100}% of earnings of ${formatPounds(item.earningsPence)}`,
      amountPence: item.commissionPence,
    })),
  );
}

type AccountingEvent = RecordedEventOf<FamilyInvoiceEvent | InvoiceEvent | AgencyEvent | ClientEvent | WorkshopEvent>;

/** What one event does to the books: the rules, for event by event and for a batch alike. */
async function record(books: Books, event: AccountingEvent) {
  switch (event.type) {
    case 'AgencyDetailsSet':
      return books.setTerms(event.data.details.paymentTermsDays);
    case 'ClientErased':
      return books.erase(event.data.clientId);
    case 'WorkshopRegistrationErased':
      return books.erase(`registration:${event.data.registrationId}`);
    case 'FamilyInvoiceIssued': {
      const invoice = event.data;
      const lines = [...invoice.lines];
      if (invoice.discountPence) lines.push({ description: 'Discount', amountPence: -invoice.discountPence });
      return books.insert(
        event,
        lines.map((line, index) => ({
          rowId: `${invoice.invoiceId}:${index + 1}`,
          part: 'sales',
          source: 'family',
          documentId: invoice.invoiceId,
          lineNo: index + 1,
          docNumber: invoice.reference,
          againstNumber: null,
          contactId: invoice.clientId,
          contactName: invoice.billing.name,
          contactEmail: invoice.billing.email,
          date: invoice.date,
          dueDate: invoice.dueDate,
          description: line.description,
          amountPence: line.amountPence,
          vatPence: line.vatPence ?? 0,
          vatRateBp: line.lesson?.vatRateBp ?? 0,
        })),
      );
    }
    case 'FamilyCreditNoteIssued': {
      const note = event.data;
      const credited = await books.salesRows(note.invoiceId);
      return books.insert(
        event,
        credited.map((line, index) => ({
          rowId: `${note.creditNoteId}:${index + 1}`,
          part: 'sales',
          source: 'family',
          documentId: note.creditNoteId,
          lineNo: index + 1,
          docNumber: note.reference,
          againstNumber: line.doc_number,
          contactId: line.contact_id,
          contactName: line.contact_name,
          contactEmail: line.contact_email,
          date: note.date,
          dueDate: note.date,
          description: line.description,
          amountPence: -Number(line.amount_pence),
          vatPence: -Number(line.vat_pence),
          vatRateBp: line.vat_rate_bp,
        })),
      );
    }
    case 'FamilyInvoicePaymentRecorded': {
      const { invoiceId, paymentId, date, amountPence } = event.data;
      const [paid] = await books.salesRows(invoiceId);
      if (!paid) return;
      return books.insert(event, [
        paymentRow(paymentId, 'family', paid, date, amountPence, paid.contact_name, paid.contact_email),
      ]);
    }
    case 'InvoiceGenerated':
      return books.putDraft(event.data);
    case 'InvoiceWithdrawn':
      return books.dropDraft(event.data.invoiceId);
    case 'InvoiceConfirmed':
      return recordSale(books, event, event.data.invoiceId);
    case 'InvoicePaymentRecorded': {
      const { invoiceId, paymentId, date, amountPence } = event.data;
      // A payment on an invoice not yet confirmed makes it final too (it can no longer be withdrawn).
      await recordSale(books, event, invoiceId);
      const documentId = await books.latestTutorSale(invoiceId);
      if (!documentId) return;
      const [paid] = await books.salesRows(documentId);
      if (!paid) return;
      return books.insert(event, [paymentRow(paymentId, 'tutor', paid, date, amountPence, null, null)]);
    }
  }
}

const paymentRow = (
  paymentId: string,
  source: Row['source'],
  paid: SalesRow,
  date: string,
  amountPence: number,
  contactName: string | null,
  contactEmail: string | null,
): Row => ({
  rowId: paymentId,
  part: 'payments',
  source,
  documentId: paymentId,
  lineNo: 1,
  docNumber: paid.doc_number,
  againstNumber: paid.doc_number,
  contactId: paid.contact_id,
  contactName,
  contactEmail,
  date,
  dueDate: date,
  description: `Payment of invoice ${paid.doc_number}`,
  amountPence,
});

const oneEvent = (sql: pg.ClientBase, event: unknown) => record(tablesOf(sql), event as AccountingEvent);

/** A batch at once (BatchBooks): a few statements, where event by event a tutor's payment alone made seven. */
async function applyAccountingBatch(sql: pg.ClientBase, events: RecordedEvent[]) {
  const mine = events.filter((event) => Object.hasOwn(accountingExportProjection.handlers, event.type));
  if (mine.length === 0) return;
  const books = new BatchBooks(sql);
  await books.preload(mine);
  for (const event of mine) await record(books, event as unknown as AccountingEvent);
  await books.flush();
}

export const accountingExportProjection = defineProjection<
  FamilyInvoiceEvent | InvoiceEvent | AgencyEvent | ClientEvent | WorkshopEvent
>({
  name: 'accounting-export',
  version: 3,
  migrations: ['081_accounting_export.sql', '086_accounting_export_vat.sql'],
  handlers: {
    AgencyDetailsSet: oneEvent,
    ClientErased: oneEvent,
    WorkshopRegistrationErased: oneEvent,
    FamilyInvoiceIssued: oneEvent,
    FamilyCreditNoteIssued: oneEvent,
    FamilyInvoicePaymentRecorded: oneEvent,
    InvoiceGenerated: oneEvent,
    InvoiceWithdrawn: oneEvent,
    InvoiceConfirmed: oneEvent,
    InvoicePaymentRecorded: oneEvent,
  },
  applyBatch: applyAccountingBatch,
});
