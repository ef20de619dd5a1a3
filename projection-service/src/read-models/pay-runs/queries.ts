import { Readable } from 'node:stream';
import {
  ERASED,
  nonJsonAnswer,
  type PayRunAnswer,
  payRunAnswer,
  payRunListAnswer,
  type TutorBankEvent,
  tutorBankDetailsAnswer,
} from '@agency/contracts';
import { fold, payRun, toPounds } from '@agency/domain';
import { type EventStore, forbidden, notFound } from '@agency/platform';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type pg from 'pg';
import { z } from 'zod';
import { requireSignIn } from '../../signed-in';
import { penceFrom } from '../money-columns';

type Options = { db: pg.Pool; store: EventStore };
type Line = payRun.PayRunLine;
type Waiting = payRun.Prepared['waiting'][number];

/** Bank details and pay runs are the admins' alone: not auditors', partners' or tutors' (docs/money-models.md). */
function adminsOnly(request: FastifyRequest) {
  if (request.signedIn.role !== 'admin') throw forbidden('Bank details and pay runs are for admins.');
}

/** A tutor's bank details as recorded up to `revision` (all of them when undefined), read through the sealing layer. */
async function bankDetailsOf(store: EventStore, tutorId: string, revision?: number) {
  const events = (await store.readStream(payRun.bankDetailsStream(tutorId)))
    .filter((event) => revision === undefined || event.revision <= revision)
    .map((event) => ({ type: event.type, data: event.data }) as TutorBankEvent);
  return fold(payRun.bankDetailsDecider, events).details;
}

/** Tutors' names now, by id (an erased tutor's reads "Erased"). */
async function tutorNames(db: pg.Pool, ids: readonly string[]) {
  const { rows } = await db.query<{ id: string; name: string }>(
    `select id, case when first_name = $2 then $2 else first_name || ' ' || last_name end as name
       from tutors where id = any($1)`,
    [[...new Set(ids)], ERASED],
  );
  return new Map(rows.map((row) => [row.id, row.name]));
}

const monthParams = z.object({ month: z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'Use a month like 2026-01') });

async function runRow(db: pg.Pool, month: string) {
  const row = (
    await db.query(
      `select id, month, to_char(prepared_on, 'YYYY-MM-DD') as prepared_on, to_char(paid_on, 'YYYY-MM-DD') as paid_on,
              total_pence, lines, waiting
         from pay_runs where id = $1`,
      [payRun.payRunIdOf(month)],
    )
  ).rows[0];
  if (!row) throw notFound('There is no pay run for that month.');
  return row as {
    id: string;
    month: string;
    prepared_on: string;
    paid_on: string | null;
    total_pence: string;
    lines: Line[];
    waiting: Waiting[];
  };
}

const owedView = ({ statementId, month, reference, owedPence }: payRun.StatementOwed) => ({
  statementId,
  month,
  reference,
  owed: toPounds(owedPence),
});

/**
 * Admins only (docs/money-models.md, "Pay runs"):
 * - `GET /api/tutors/bank-details/:tutorId`: a tutor's bank details in full;
 * - `GET /api/pay-runs`: every run; `GET /api/pay-runs/:month`: one, its lines and who waits;
 * - `GET /api/pay-runs/:month/bank-file.csv`: its bank file, one row per tutor it can pay, into the
 *   details as they were when the run was prepared (a re-download is the same file). A tutor erased
 *   since is left out: their details no longer open.
 */
export async function payRunQueries(fastify: FastifyInstance, { db, store }: Options) {
  requireSignIn(fastify);
  // Before the parameters are looked at: nobody else learns even which months or tutors are valid.
  fastify.addHook('preValidation', async (request) => adminsOnly(request));
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get(
    '/api/tutors/bank-details/:tutorId',
    { schema: { params: z.object({ tutorId: z.string().min(1) }), response: { 200: tutorBankDetailsAnswer } } },
    async (request) => {
      const { tutorId } = request.params;
      const details = await bankDetailsOf(store, tutorId);
      if (!details) return { tutorId, bankDetails: null, erased: false };
      if (payRun.isErased(details)) return { tutorId, bankDetails: null, erased: true };
      return { tutorId, bankDetails: { ...details, sortCode: payRun.formatSortCode(details.sortCode) }, erased: false };
    },
  );

  app.get('/api/pay-runs', { schema: { response: { 200: payRunListAnswer } } }, async () => {
    const { rows } = await db.query(
      `select id, month, to_char(prepared_on, 'YYYY-MM-DD') as prepared_on, to_char(paid_on, 'YYYY-MM-DD') as paid_on,
              total_pence, tutors, blocked
         from pay_runs order by month desc`,
    );
    return {
      runs: rows.map((row) => ({
        payRunId: row.id,
        month: row.month,
        preparedOn: row.prepared_on,
        paidOn: row.paid_on,
        total: toPounds(penceFrom(row.total_pence)),
        tutors: row.tutors,
        blocked: row.blocked,
      })),
    };
  });

  app.get(
    '/api/pay-runs/:month',
    { schema: { params: monthParams, response: { 200: payRunAnswer } } },
    async (request): Promise<PayRunAnswer> => {
      const row = await runRow(db, request.params.month);
      const names = await tutorNames(
        db,
        [...row.lines, ...row.waiting].map((line) => line.tutorId),
      );
      const nameOf = (tutorId: string) => names.get(tutorId) ?? tutorId;
      // Before it is paid, a statement paid elsewhere since the run was prepared is pointed out: its
      // file would pay more than is owed now (the payment recorded never is).
      const statementIds = row.lines.flatMap((line) => line.statements.map((statement) => statement.statementId));
      const owedNow = new Map(
        row.paid_on
          ? []
          : (
              await db.query<{ id: string; owed_pence: string }>(
                'select id, total_pay_pence - paid_pence as owed_pence from pay_statements where id = any($1)',
                [statementIds],
              )
            ).rows.map((statement) => [statement.id, penceFrom(statement.owed_pence)]),
      );
      const paidElsewhere = (line: Line) =>
        line.statements.some(
          (statement) => (owedNow.get(statement.statementId) ?? statement.owedPence) < statement.owedPence,
        );
      const lines = await Promise.all(
        row.lines.map(async (line) => {
          const details =
            line.bankDetailsRevision === null
              ? null
              : await bankDetailsOf(store, line.tutorId, line.bankDetailsRevision);
          const erased = details !== null && payRun.isErased(details);
          return {
            tutorId: line.tutorId,
            tutorName: nameOf(line.tutorId),
            amount: toPounds(line.amountPence),
            reference: line.reference,
            account: details && !erased ? payRun.maskAccountNumber(details.accountNumber) : null,
            blocked: erased ? ('bank-details-erased' as const) : line.blocked,
            paidElsewhere: paidElsewhere(line),
            statements: line.statements.map(owedView),
          };
        }),
      );
      return {
        payRunId: row.id,
        month: row.month,
        preparedOn: row.prepared_on,
        paidOn: row.paid_on,
        total: toPounds(penceFrom(row.total_pence)),
        lines,
        waiting: row.waiting.map((statement) => ({
          ...owedView(statement),
          tutorId: statement.tutorId,
          tutorName: nameOf(statement.tutorId),
        })),
      };
    },
  );

  app.get(
    '/api/pay-runs/:month/bank-file.csv',
    {
      schema: {
        params: monthParams,
        response: {
          200: nonJsonAnswer('text/csv', 'One row per tutor paid: name, sort code, account, amount, reference'),
        },
      },
    },
    async (request, reply) => {
      const row = await runRow(db, request.params.month);
      const rows: payRun.BankFileRow[] = [];
      for (const line of row.lines) {
        if (line.blocked !== null || line.bankDetailsRevision === null) continue;
        const details = await bankDetailsOf(store, line.tutorId, line.bankDetailsRevision);
        // Erased since the run was prepared: nothing left to pay into, so not in the file.
        if (!details || payRun.isErased(details)) continue;
        // A building society credits by the roll number: it is the reference, read from the sealed details.
        const reference = details.rollNumber
          ? payRun.paymentReference({
              month: row.month,
              statementReferences: line.statements.map((statement) => statement.reference),
              rollNumber: details.rollNumber,
            })
          : line.reference;
        rows.push({ ...details, amountPence: line.amountPence, reference });
      }
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="pay-run-${row.month}.csv"`)
        .header('cache-control', 'private, no-store')
        .send(Readable.from([payRun.bankFileCsv(rows)]));
    },
  );
}
