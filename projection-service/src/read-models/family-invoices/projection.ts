import { type ClientEvent, ERASED, type FamilyInvoiceEvent, type WorkshopEvent } from '@agency/contracts';
import type pg from 'pg';
import { defineProjection } from '../projection';

const eraseBilling = (sql: pg.ClientBase, clientId: string) =>
  sql.query('update family_invoices set billing = $2 where client_id = $1', [
    clientId,
    JSON.stringify({ name: ERASED, address: [ERASED], postcode: ERASED, email: ERASED }),
  ]);

export const familyInvoicesProjection = defineProjection<FamilyInvoiceEvent | ClientEvent | WorkshopEvent>({
  name: 'family-invoices',
  version: 1,
  migrations: ['022_family_invoices.sql', '060_family_invoices_by_client.sql'],
  handlers: {
    // Operations no longer see an erased family's billing details; the accounting copy stays in
    // the events under its own key until its retention ends (docs/personal-data.md).
    ClientErased: (sql, { data: { clientId } }) => eraseBilling(sql, clientId),
    // A booking of no known family is billed as `registration:{id}` (the workshop invoice's first booking).
    WorkshopRegistrationErased: (sql, { data: { registrationId } }) =>
      eraseBilling(sql, `registration:${registrationId}`),
    FamilyInvoiceIssued: (sql, { data: invoice }) =>
      sql.query(
        `insert into family_invoices (id, reference, date, due_date, client_id, billed_kind, billed_id, billing, lines,
                                      total_pence)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [
          invoice.invoiceId,
          invoice.reference,
          invoice.date,
          invoice.dueDate,
          invoice.clientId,
          invoice.billedFor.kind,
          invoice.billedFor.id,
          JSON.stringify(invoice.billing),
          JSON.stringify(invoice.lines),
          invoice.totalPence,
        ],
      ),
    FamilyInvoicePaymentRecorded: async (sql, { data: { invoiceId, paymentId, date, amountPence } }) => {
      await sql.query('insert into family_payments (id, invoice_id, date, amount_pence) values ($1, $2, $3, $4)', [
        paymentId,
        invoiceId,
        date,
        amountPence,
      ]);
      return sql.query('update family_invoices set paid_pence = paid_pence + $2 where id = $1', [
        invoiceId,
        amountPence,
      ]);
    },
    FamilyCreditNoteIssued: (sql, { data }) =>
      sql.query(
        `update family_invoices set credit_note_id = $2, credit_note_reference = $3, credit_note_date = $4,
                credit_reason = $5 where id = $1`,
        [data.invoiceId, data.creditNoteId, data.reference, data.date, data.reason],
      ),
  },
});
