import { Readable } from 'node:stream';
import {
  clientParams,
  familyDocumentParams,
  familyLedgerAnswer,
  familyLedgerQuery,
  familyOverviewAnswer,
  lessonInvoiceAnswer,
  nonJsonAnswer,
  pdfAnswer,
  readsEveryTutor,
} from '@agency/contracts';
import { familyInvoice, todayIn } from '@agency/domain';
import { type EventStore, forbidden, HttpError, notFound } from '@agency/platform';
import {
  contentHashOfDocument,
  issuedDocumentIn,
  renderIssuedDocument,
} from '@agency/platform/documents/issued-documents';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type pg from 'pg';
import { requireSignIn } from '../../signed-in';
import type { AgencyToday } from '../clients/queries';
import { familyOverview } from './family-overview';
import { ledgerCsv, ledgerPage, periodOf } from './ledger';
import { lessonInvoiceLines } from './lesson-lines';

/**
 * Who reads families' money (the ledger, a family's invoices and balance, the documents): the
 * office, that is admins, partners and auditors; never a tutor.
 */
const refuseTutors = (role: Parameters<typeof readsEveryTutor>[0]) => {
  if (!readsEveryTutor(role)) throw forbidden('Family invoices are for the office.');
};

/** Text written to the client as it is made (a stream has no place in the route's JSON answer type). */
function sendCsv(reply: FastifyReply, text: AsyncIterable<string>) {
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', 'attachment; filename="family-invoices.csv"')
    .header('cache-control', 'private, no-store')
    .send(Readable.from(text));
}

/**
 * - `GET /api/family-invoices`: the family invoices ledger (contracts: familyLedgerQuery), a page
 *   of entries with the totals of every filtered one, or with `format=csv` all of them as CSV;
 * - `GET /api/clients/{id}/overview`: what a family owes, its invoices, lessons and tutors;
 * - `GET /api/family-invoices/doc/{id}`: a family invoice's PDF, or a credit note's (by the
 *   credit note's id), opened in a new tab (the cookie alone authenticates it).
 * Each for admins, partners and auditors.
 */
export async function familyInvoiceQueries(
  fastify: FastifyInstance,
  { db, today, store }: { db: pg.Pool; today: AgencyToday; store: EventStore },
) {
  requireSignIn(fastify);
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  const ledger = {
    querystring: familyLedgerQuery,
    response: {
      200: {
        description: 'A page of the ledger; with format=csv, every filtered entry as CSV',
        // The CSV first: the handler's answer is typed by the first, and a stream is no JSON.
        content: {
          ...nonJsonAnswer('text/csv', 'Every filtered entry, one row each').content,
          'application/json': { schema: familyLedgerAnswer },
        },
      },
    },
  };
  app.get('/api/family-invoices', { schema: ledger }, async (request, reply) => {
    refuseTutors(request.signedIn.role);
    const { client, state, year, month, format, limit, cursor } = request.query;
    const filters = { clientId: client ?? null, state: state ?? null, period: periodOf(year, month) };
    if (format === 'csv') {
      if (cursor !== undefined) {
        throw new HttpError(400, 'invalid_input', 'The CSV is always every filtered entry: ask without a cursor.', {
          cursor: 'Not with format=csv',
        });
      }
      return sendCsv(reply, ledgerCsv(db, filters));
    }
    return ledgerPage(db, filters, { limit, cursor });
  });

  const overview = { params: clientParams, response: { 200: familyOverviewAnswer } };
  app.get('/api/clients/:id/overview', { schema: overview }, async (request) => {
    refuseTutors(request.signedIn.role);
    const { id } = request.params;
    const found = await db.query('select 1 from clients where id = $1', [id]);
    if (found.rowCount === 0) throw notFound('There is no such client.');
    return familyOverview(db, id, todayIn(today.timeZone, today.clock()));
  });

  const document = {
    params: familyDocumentParams,
    response: { 200: pdfAnswer("A family invoice's PDF document, or a credit note's") },
  };
  app.get('/api/family-invoices/doc/:id', { schema: document }, async (request, reply) => {
    refuseTutors(request.signedIn.role);
    return sendFamilyDocument({ db, store }, reply, request.params.id);
  });

  // A lessons invoice's lines: lessons, adjustments and VAT (docs/money-models.md, "Family lesson invoices").
  const lessonLines = { params: familyDocumentParams, response: { 200: lessonInvoiceAnswer } };
  app.get('/api/family-invoices/lines/:id', { schema: lessonLines }, async (request) => {
    refuseTutors(request.signedIn.role);
    return lessonInvoiceLines(db, request.params.id);
  });
}

/**
 * A family invoice's PDF (or its credit note's, by the credit note's id), rendered from its events
 * as issued (docs/documents.md); with `clientId`, only one billed to that family: any other
 * answers 404, as an unknown id. The read model only finds it.
 */
export async function sendFamilyDocument(
  { db, store }: { db: pg.Pool; store: EventStore },
  reply: FastifyReply,
  id: string,
  clientId?: string,
) {
  const found = await db.query<{ id: string; credit_note_id: string | null }>(
    `select id, credit_note_id from family_invoices
      where (id = $1 or credit_note_id = $1) and ($2::text is null or client_id = $2)`,
    [id, clientId ?? null],
  );
  const row = found.rows[0];
  const creditNote = row?.credit_note_id === id;
  const issued =
    row &&
    (await issuedDocumentIn(store, familyInvoice.familyInvoiceStream(row.id), (event) =>
      creditNote ? event.type === 'FamilyCreditNoteIssued' : event.type === 'FamilyInvoiceIssued',
    ));
  if (!issued) throw notFound('There is no such invoice.');
  const pdf = await renderIssuedDocument(issued);
  return reply
    .type('application/pdf')
    .header('content-disposition', `inline; filename="${issued.reference.replace(/[^A-Za-z0-9_-]/g, '')}.pdf"`)
    .header('cache-control', 'private, no-store')
    .header('x-content-hash', contentHashOfDocument(issued))
    .send(pdf);
}
