import {
  type PayStatementLine,
  payStatementAnswer,
  payStatementListAnswer,
  payStatementListQuery,
  payStatementParams,
  pdfAnswer,
  type SessionUser,
} from '@agency/contracts';
import { payStatement, timesheet, toHours, toPounds } from '@agency/domain';
import { type EventStore, forbidden, notFound } from '@agency/platform';
import {
  contentHashOfDocument,
  issuedDocumentIn,
  renderIssuedDocument,
} from '@agency/platform/documents/issued-documents';
import { describeLine } from '@agency/platform/documents/pay-statement-document';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type pg from 'pg';
import { requireSignIn } from '../../signed-in';
import { withMoney } from '../money-columns';

type Row = {
  id: string;
  tutor_id: string;
  month: string;
  reference: string;
  date: string;
  total_pay_pence: number;
  held_pence: number;
  carried_pence: number;
  paid_pence: number;
  confirmed: boolean;
  lines: PayStatementLine[];
  first_name: string | null;
  last_name: string | null;
};

const COLUMNS = `s.id, s.tutor_id, s.month, s.reference, to_char(s.date, 'YYYY-MM-DD') as date, s.total_pay_pence,
  s.held_pence, s.carried_pence, s.paid_pence, s.confirmed, s.lines, t.first_name, t.last_name`;

const summaryOf = (row: Row) => ({
  id: row.id,
  tutorId: row.tutor_id,
  tutorName: `${row.first_name ?? ''} ${row.last_name ?? ''}`.trim(),
  month: row.month,
  period: timesheet.monthName(row.month),
  reference: row.reference,
  date: row.date,
  totalPay: toPounds(row.total_pay_pence),
  held: toPounds(row.held_pence),
  confirmed: row.confirmed,
  paid: toPounds(row.paid_pence),
  owed: toPounds(Math.max(row.total_pay_pence - row.paid_pence, 0)),
});

/** Whose statements a user reads: a tutor (or a partner tied to one) may ask only for their own; a tutor sees no one else's. */
function whose(user: SessionUser, asked: string | undefined): string | undefined {
  if (user.role !== 'tutor') return asked;
  if (asked && asked !== user.tutorId) throw forbidden('A tutor can see only their own pay statements.');
  return user.tutorId ?? '-';
}

/** One statement for `user`: another tutor's is not found (its existence is not told). */
async function oneStatement(db: pg.Pool, user: SessionUser, id: string): Promise<Row> {
  const found = await db.query(
    `select ${COLUMNS} from pay_statements s left join tutors t on t.id = s.tutor_id where s.id = $1`,
    [id],
  );
  const row = found.rows[0] && (withMoney(found.rows[0]) as Row);
  if (!row || (user.role === 'tutor' && row.tutor_id !== user.tutorId))
    throw notFound('There is no such pay statement.');
  return row;
}

/** The children the lines name, by id, as the family's record says now ("Erased" once erased). */
async function childrenOf(db: pg.Pool, lines: readonly PayStatementLine[]) {
  const { rows } = await db.query<{ id: string; name: string }>(
    `select id, first_name || ' ' || last_name as name from children where id = any($1)`,
    [[...new Set(lines.map((line) => line.studentId))]],
  );
  return new Map(rows.map((row) => [row.id, row.name]));
}

/**
 * Pay statements (docs/money-models.md, "Pay statements"), for the statement's tutor, admins,
 * partners and auditors:
 * - `GET /api/pay-statements?month=&tutorId=`: the statements, newest month first;
 * - `GET /api/pay-statements/:id`: one, its lines in words;
 * - `GET /api/pay-statements/:id/document.pdf`: its PDF as issued (header `x-content-hash`).
 */
export async function payStatementQueries(fastify: FastifyInstance, { db, store }: { db: pg.Pool; store: EventStore }) {
  requireSignIn(fastify);
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  const list = { querystring: payStatementListQuery, response: { 200: payStatementListAnswer } };
  app.get('/api/pay-statements', { schema: list }, async (request) => {
    const tutorId = whose(request.signedIn, request.query.tutorId);
    const { rows } = await db.query(
      `select ${COLUMNS} from pay_statements s left join tutors t on t.id = s.tutor_id
        where ($1::text is null or s.tutor_id = $1) and ($2::text is null or s.month = $2)
        order by s.month desc, t.last_name, t.first_name, s.id limit 1000`,
      [tutorId ?? null, request.query.month ?? null],
    );
    return { statements: rows.map((row) => summaryOf(withMoney(row) as Row)) };
  });

  const one = { params: payStatementParams, response: { 200: payStatementAnswer } };
  app.get('/api/pay-statements/:id', { schema: one }, async (request) => {
    const row = await oneStatement(db, request.signedIn, request.params.id);
    const children = await childrenOf(db, row.lines);
    return {
      statement: {
        ...summaryOf(row),
        carried: toPounds(row.carried_pence),
        lines: row.lines.map((line) => {
          const child = children.get(line.studentId) ?? 'Unknown';
          return {
            kind: line.kind,
            lessonId: line.lessonId,
            date: line.date,
            child,
            hours: toHours(line.duration),
            amount: toPounds(line.amountPence),
            share: toPounds(line.sharePence),
            pay: toPounds(line.payPence),
            paidBefore: toPounds(line.paidBeforePence),
            line: toPounds(line.linePence),
            removed: line.removed,
            description: describeLine(line, child),
          };
        }),
      },
    };
  });

  const document = { params: payStatementParams, response: { 200: pdfAnswer("A tutor's pay statement as a PDF") } };
  app.get('/api/pay-statements/:id/document.pdf', { schema: document }, async (request, reply) => {
    const row = await oneStatement(db, request.signedIn, request.params.id);
    // The statement as issued, from its events (docs/documents.md): the same bytes whenever it is opened.
    const issued = await issuedDocumentIn(
      store,
      payStatement.payStatementStream(row.tutor_id, row.month),
      (event) => event.type === 'PayStatementIssued',
    );
    if (!issued) throw notFound('There is no such pay statement.');
    const pdf = await renderIssuedDocument(issued);
    return reply
      .type('application/pdf')
      .header('content-disposition', `inline; filename="${row.reference.replace(/[^A-Za-z0-9_-]/g, '')}.pdf"`)
      .header('x-content-hash', contentHashOfDocument(issued))
      .header('cache-control', 'private, no-store')
      .send(pdf);
  });
}
