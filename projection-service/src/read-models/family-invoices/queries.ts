import { familyDocumentParams, pdfAnswer, readsAsAdmin } from '@agency/contracts';
import { forbidden, notFound } from '@agency/platform';
import { renderFamilyDocument } from '@agency/platform/documents/family-invoice-document';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type pg from 'pg';
import { requireSignIn } from '../../signed-in';
import { agencyDetailsOf } from '../agency/queries';
import { withMoney } from '../money-columns';

/**
 * `GET /api/family-invoices/doc/{id}`: a family invoice's PDF, or a credit note's (by the credit
 * note's id), opened in a new tab (the cookie alone authenticates it). Admins (and auditors) only.
 */
export async function familyInvoiceQueries(fastify: FastifyInstance, { db }: { db: pg.Pool }) {
  requireSignIn(fastify);
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const document = {
    params: familyDocumentParams,
    response: { 200: pdfAnswer("A family invoice's PDF document, or a credit note's") },
  };
  app.get('/api/family-invoices/doc/:id', { schema: document }, async (request, reply) => {
    if (!readsAsAdmin(request.signedIn.role)) throw forbidden('Family invoices are for admins.');
    const { id } = request.params;
    const found = await db.query(
      `select id, reference, to_char(date, 'YYYY-MM-DD') as date, to_char(due_date, 'YYYY-MM-DD') as due_date, billing,
              lines, total_pence, paid_pence, credit_note_id, credit_note_reference,
              to_char(credit_note_date, 'YYYY-MM-DD') as credit_note_date
         from family_invoices where id = $1 or credit_note_id = $1`,
      [id],
    );
    const row = found.rows[0] && withMoney(found.rows[0]);
    if (!row) throw notFound('There is no such invoice.');
    const creditNote = row.credit_note_id === id;
    const common = { billing: row.billing, lines: row.lines, totalPence: row.total_pence, dueDate: row.due_date };
    const pdf = await renderFamilyDocument(
      creditNote
        ? {
            ...common,
            kind: 'credit note',
            reference: row.credit_note_reference,
            date: row.credit_note_date,
            creditedReference: row.reference,
            paidPence: 0,
          }
        : {
            ...common,
            kind: 'invoice',
            reference: row.reference,
            date: row.date,
            paidPence: row.paid_pence,
            creditedBy: row.credit_note_reference ?? undefined,
          },
      await agencyDetailsOf(db),
    );
    const reference = creditNote ? row.credit_note_reference : row.reference;
    return reply
      .type('application/pdf')
      .header('content-disposition', `inline; filename="${reference.replace(/[^A-Za-z0-9_-]/g, '')}.pdf"`)
      .header('cache-control', 'private, no-store')
      .send(pdf);
  });
}
