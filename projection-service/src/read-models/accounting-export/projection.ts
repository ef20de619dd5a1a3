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
import { defineProjection } from '../projection';

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

const insert = (sql: pg.ClientBase, event: Pick<RecordedEvent, 'position'>, rows: Row[]) =>
  Promise.all(
    rows.map((row) =>
      sql.query(
        `insert into accounting_rows (row_id, part, source, document_id, line_no, doc_number, against_number, contact_id,
                                      contact_name, contact_email, date, due_date, description, amount_pence,
                                      commit_position, prepare_position, vat_pence, vat_rate_bp)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`,
        [
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
        ],
      ),
    ),
  );

/** A document's rows as recorded: its invoice's, to credit or to pay. */
const rowsOf = async (sql: pg.ClientBase, documentId: string) =>
  (
    await sql.query(
      `select doc_number, contact_id, contact_name, contact_email, description, amount_pence, vat_pence, vat_rate_bp
         from accounting_rows
        where document_id = $1 and part = 'sales' order by line_no`,
      [documentId],
    )
  ).rows as {
    doc_number: string;
    contact_id: string;
    contact_name: string | null;
    contact_email: string | null;
    description: string;
    amount_pence: string;
    vat_pence: string;
    vat_rate_bp: number;
  }[];

const erase = (sql: pg.ClientBase, contactId: string) =>
  sql.query('update accounting_rows set contact_name = $2, contact_email = $2 where contact_id = $1', [
    contactId,
    ERASED,
  ]);

/**
 * A tutor's generated invoice becomes a sale once final: confirmed, or paid (then it can no longer
 * be withdrawn), whichever comes first; its rows carry that event's position.
 */
async function recordSale(sql: pg.ClientBase, event: Pick<RecordedEvent, 'position'>, invoiceId: string) {
  const draft = (await sql.query('select generated from accounting_tutor_drafts where invoice_id = $1', [invoiceId]))
    .rows[0];
  if (!draft) return;
  const generated = draft.generated as Extract<InvoiceEvent, { type: 'InvoiceGenerated' }>['data'];
  const terms = (await sql.query('select payment_terms_days from accounting_terms where id = 1')).rows[0];
  const dueDate = addDays(generated.date, (terms?.payment_terms_days as number | undefined) ?? 0);
  await sql.query('delete from accounting_tutor_drafts where invoice_id = $1', [generated.invoiceId]);
  // A final invoice's id is its reference's: the month's id may be used again after a withdrawal.
  const documentId = `${generated.invoiceId}~${generated.reference}`;
  await insert(
    sql,
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

export const accountingExportProjection = defineProjection<
  FamilyInvoiceEvent | InvoiceEvent | AgencyEvent | ClientEvent | WorkshopEvent
>({
  name: 'accounting-export',
  version: 3,
  migrations: ['081_accounting_export.sql', '086_accounting_export_vat.sql'],
  handlers: {
    AgencyDetailsSet: (sql, { data }) =>
      sql.query(
        `insert into accounting_terms (id, payment_terms_days) values (1, $1)
         on conflict (id) do update set payment_terms_days = excluded.payment_terms_days`,
        [data.details.paymentTermsDays],
      ),
    ClientErased: (sql, { data }) => erase(sql, data.clientId),
    WorkshopRegistrationErased: (sql, { data }) => erase(sql, `registration:${data.registrationId}`),
    FamilyInvoiceIssued: (sql, event) => {
      const invoice = event.data;
      const lines = [...invoice.lines];
      if (invoice.discountPence) lines.push({ description: 'Discount', amountPence: -invoice.discountPence });
      return insert(
        sql,
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
    },
    FamilyCreditNoteIssued: async (sql, event) => {
      const note = event.data;
      const credited = await rowsOf(sql, note.invoiceId);
      return insert(
        sql,
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
    },
    FamilyInvoicePaymentRecorded: async (sql, event) => {
      const { invoiceId, paymentId, date, amountPence } = event.data;
      const [paid] = await rowsOf(sql, invoiceId);
      if (!paid) return;
      return insert(sql, event, [
        {
          rowId: paymentId,
          part: 'payments',
          source: 'family',
          documentId: paymentId,
          lineNo: 1,
          docNumber: paid.doc_number,
          againstNumber: paid.doc_number,
          contactId: paid.contact_id,
          contactName: paid.contact_name,
          contactEmail: paid.contact_email,
          date,
          dueDate: date,
          description: `Payment of invoice ${paid.doc_number}`,
          amountPence,
        },
      ]);
    },
    InvoiceGenerated: (sql, { data }) =>
      sql.query(
        `insert into accounting_tutor_drafts (invoice_id, generated) values ($1, $2)
         on conflict (invoice_id) do update set generated = excluded.generated`,
        [data.invoiceId, JSON.stringify(data)],
      ),
    InvoiceWithdrawn: (sql, { data }) =>
      sql.query('delete from accounting_tutor_drafts where invoice_id = $1', [data.invoiceId]),
    InvoiceConfirmed: (sql, event) => recordSale(sql, event, event.data.invoiceId),
    InvoicePaymentRecorded: async (sql, event) => {
      const { invoiceId, paymentId, date, amountPence } = event.data;
      // A payment on an invoice not yet confirmed makes it final too (it can no longer be withdrawn).
      await recordSale(sql, event, invoiceId);
      const found = (
        await sql.query(
          `select document_id from accounting_rows where source = 'tutor' and part = 'sales' and document_id like $1
            order by commit_position desc, prepare_position desc limit 1`,
          [`${invoiceId.replace(/[\\%_]/g, '\\$&')}~%`],
        )
      ).rows[0];
      if (!found) return;
      const [paid] = await rowsOf(sql, found.document_id as string);
      if (!paid) return;
      return insert(sql, event, [
        {
          rowId: paymentId,
          part: 'payments',
          source: 'tutor',
          documentId: paymentId,
          lineNo: 1,
          docNumber: paid.doc_number,
          againstNumber: paid.doc_number,
          contactId: paid.contact_id,
          contactName: null,
          contactEmail: null,
          date,
          dueDate: date,
          description: `Payment of invoice ${paid.doc_number}`,
          amountPence,
        },
      ]);
    },
  },
});
