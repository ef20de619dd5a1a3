import { type ClientEvent, ERASED, type FamilyInvoiceEvent, type WorkshopEvent } from '@agency/contracts';
import type pg from 'pg';
import { defineProjection } from '../projection';

const eraseBilling = (sql: pg.ClientBase, clientId: string) =>
  sql.query(`update family_invoices set billing = $2, names = '{}' where client_id = $1`, [
    clientId,
    JSON.stringify({ name: ERASED, address: [ERASED], postcode: ERASED, email: ERASED }),
  ]);

export const familyInvoicesProjection = defineProjection<FamilyInvoiceEvent | ClientEvent | WorkshopEvent>({
  name: 'family-invoices',
  version: 2,
  migrations: ['022_family_invoices.sql', '060_family_invoices_by_client.sql', '085_family_invoice_lessons.sql'],
  handlers: {
    // Operations no longer see an erased family's billing details; the accounting copy stays in
    // the events under its own key until its retention ends (docs/personal-data.md).
    ClientErased: (sql, { data: { clientId } }) => eraseBilling(sql, clientId),
    // A booking of no known family is billed as `registration:{id}` (the workshop invoice's first booking).
    WorkshopRegistrationErased: (sql, { data: { registrationId } }) =>
      eraseBilling(sql, `registration:${registrationId}`),
    FamilyInvoiceIssued: async (sql, { data: invoice }) => {
      // Which invoice billed which lesson: what a late change is measured against (docs/money-models.md).
      const billed = invoice.lines.flatMap((line) => (line.lesson ? [{ ...line, lesson: line.lesson }] : []));
      if (billed.length > 0) {
        await sql.query(
          `insert into family_invoice_lessons (invoice_id, lesson_id, client_id, kind, tutor_id, lesson_date,
                                               amount_pence, vat_pence)
           select $1, l.lesson_id, $2, l.kind, l.tutor_id, l.lesson_date, l.amount_pence, l.vat_pence
             from unnest($3::text[], $4::text[], $5::text[], $6::date[], $7::bigint[], $8::bigint[])
                  as l(lesson_id, kind, tutor_id, lesson_date, amount_pence, vat_pence)`,
          [
            invoice.invoiceId,
            invoice.clientId,
            billed.map((line) => line.lesson.lessonId),
            billed.map((line) => line.lesson.kind),
            billed.map((line) => line.lesson.tutorId),
            billed.map((line) => line.lesson.date),
            billed.map((line) => line.amountPence),
            billed.map((line) => line.vatPence ?? 0),
          ],
        );
      }
      return sql.query(
        `insert into family_invoices (id, reference, date, due_date, client_id, billed_kind, billed_id, billing, lines,
                                      total_pence, vat_pence, tutor_billed, names)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
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
          invoice.vatPence ?? 0,
          JSON.stringify(invoice.tutorBilled ?? []),
          JSON.stringify(Object.fromEntries((invoice.names ?? []).map(({ id, name }) => [id, name]))),
        ],
      );
    },
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
