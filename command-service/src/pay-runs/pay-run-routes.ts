import { payRunPaidBody, preparePayRunBody, tutorBankDetailsBody } from '@agency/contracts';
import { DomainError, payRun, payStatement, todayIn, toPounds, tutor } from '@agency/domain';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import {
  type CommandContext,
  type CommandDependencies,
  commandRoute,
  derivedId,
  requireReadModelsCaughtUp,
} from '../pipeline/command-pipeline';
import { PAY_RUNS_REACTOR } from './pay-run-reactor';

type Options = { deps: CommandDependencies; db: pg.Pool; timeZone: string };

/** The payment of one statement by one run: the same id however often, and wherever, it is recorded. */
export const payRunPaymentIdOf = (month: string, statementId: string) =>
  derivedId('pay-run-payment', payRun.payRunIdOf(month), statementId);

type Line = payRun.PayRunLine;

/** What decides which statements the read models list as owed, and which runs hold them. */
const STATEMENT_EVENTS = [
  'PayStatementIssued',
  'PayStatementConfirmed',
  'TutorPaymentRecorded',
  'PayRunPrepared',
  'PayRunPaid',
];
type Owed = payRun.StatementOwed;

/**
 * The run of `month` as things stand: every issued pay statement of that month or before with pay
 * still owed (read from its own stream; the read model only says which may be), not on another
 * run still unpaid. Confirmed ones are paid, grouped by tutor; the others wait for their tutor.
 */
async function gatherRun(deps: CommandDependencies, context: CommandContext, db: pg.Pool, month: string, date: string) {
  // The read models are first brought up to now, so a statement issued just before is not missed
  // and one another run holds is not listed again: while they cannot be (a projection stopped or
  // slow past the bound), nothing is prepared, as a run gathered from them could pay a statement
  // in two bank files; a retry prepares it.
  await requireReadModelsCaughtUp(
    deps,
    STATEMENT_EVENTS,
    'The pay runs and statements are still being brought up to date. Please try again in a moment.',
  );
  const { rows } = await db.query<{ id: string; tutor_id: string; month: string }>(
    `select id, tutor_id, left(month::text, 7) as month from read.pay_statements
      where left(month::text, 7) <= $1 and paid_pence < total_pay_pence
      order by tutor_id, month, id`,
    [month],
  );
  // A statement on another month's run is that run's to pay, never in two bank files: while that run
  // is not paid (unless its line cannot be paid), and once it is, what it pays and the pay-runs
  // reactor has not recorded yet (a reactor stopped or slow) is not owed again.
  const others = await db.query<{ statement_id: string }>(
    `select s ->> 'statementId' as statement_id
       from read.pay_runs r, jsonb_array_elements(r.lines) l, jsonb_array_elements(l -> 'statements') s
      where r.id <> $1 and r.paid_on is null and l ->> 'blocked' is null`,
    [payRun.payRunIdOf(month)],
  );
  const elsewhere = new Set(others.rows.map((other) => other.statement_id));
  const paidElsewhere = (
    await db.query<{ payment_id: string; statement_id: string; amount_pence: string }>(
      `select p ->> 'paymentId' as payment_id, p ->> 'statementId' as statement_id, p ->> 'amountPence' as amount_pence
         from read.pay_runs r, jsonb_array_elements(r.payments) p
        where r.id <> $1 and p ->> 'statementId' = any($2)`,
      [payRun.payRunIdOf(month), rows.map((row) => row.id)],
    )
  ).rows;
  const payable = new Map<string, Owed[]>();
  const waiting: (Owed & { tutorId: string })[] = [];
  for (const row of rows) {
    if (elsewhere.has(row.id)) continue;
    const state = await context.load(
      payStatement.payStatementStream(row.tutor_id, row.month),
      payStatement.payStatementDecider,
    );
    if (state.status !== 'issued') continue;
    const pending = paidElsewhere
      .filter((payment) => payment.statement_id === row.id && !state.paymentIds.has(payment.payment_id))
      .reduce((sum, payment) => sum + Number(payment.amount_pence), 0);
    const owedPence = payStatement.owedOf(state) - pending;
    if (owedPence <= 0) continue;
    const { statementId, tutorId, reference } = state.statement;
    const owed = { statementId, month: state.statement.month, reference, owedPence };
    if (state.confirmed) payable.set(tutorId, [...(payable.get(tutorId) ?? []), owed]);
    else waiting.push({ ...owed, tutorId });
  }
  const lines: Line[] = [];
  // In the order of the tutors' ids: the same run gathered twice is the same run.
  const byTutor = [...payable].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [tutorId, statements] of byTutor) {
    const person = await context.load(tutor.tutorStream(tutorId), tutor.tutorDecider);
    const bank = await context.load(payRun.bankDetailsStream(tutorId), payRun.bankDetailsDecider);
    const erased = (person.status !== 'none' && person.erased) || (bank.details && payRun.isErased(bank.details));
    const blocked = erased ? 'bank-details-erased' : bank.details ? null : 'no-bank-details';
    // Never the roll number here: it is the tutor's sealed personal data, and this event is in clear;
    // the bank file puts it in the reference from the sealed details.
    const reference = payRun.paymentReference({
      month,
      statementReferences: statements.map((statement) => statement.reference),
      rollNumber: null,
    });
    lines.push({
      tutorId,
      statements,
      amountPence: payRun.lineTotal({ statements }),
      reference,
      bankDetailsRevision: blocked ? null : bank.count - 1,
      blocked,
    });
  }
  return { payRunId: payRun.payRunIdOf(month), month, date, lines, waiting };
}

/**
 * Tutors' bank details and pay runs (docs/money-models.md, "Pay runs"), admins only:
 * - `POST /api/tutors/bank-details/:tutorId`: record a tutor's bank account (sealed under their key);
 * - `POST /api/pay-runs` `{ month }`: prepare the month's run, or prepare it again until it is paid;
 * - `POST /api/pay-runs/paid/:month` `{ date }`: its bank file was paid; the `pay-runs` reactor records
 *   each payment on its statement, and the answer waits (boundedly) for that.
 */
export async function payRunRoutes(app: FastifyInstance, { deps, db, timeZone }: Options) {
  commandRoute<typeof tutorBankDetailsBody, { tutorId: string }>(app, deps, {
    url: '/api/tutors/bank-details/:tutorId',
    roles: ['admin'],
    body: tutorBankDetailsBody,
    handle: async ({ body, params }, { run, load, user }) => {
      const { tutorId } = params;
      const person = await load(tutor.tutorStream(tutorId), tutor.tutorDecider);
      const known = person.status === 'none' ? 'none' : person.erased ? 'erased' : 'known';
      const saved = await run(payRun.bankDetailsStream(tutorId), payRun.bankDetailsDecider, {
        type: 'SetTutorBankDetails',
        tutorId,
        details: {
          accountName: body.accountName,
          sortCode: body.sortCode,
          accountNumber: body.accountNumber,
          rollNumber: body.rollNumber ?? null,
        },
        tutor: known,
        actor: { role: user.role, tutorId: user.tutorId },
      });
      return { tutorId, recorded: saved.count };
    },
  });

  commandRoute(app, deps, {
    url: '/api/pay-runs',
    roles: ['admin'],
    body: preparePayRunBody,
    handle: async ({ body }, context) => {
      const today = todayIn(timeZone, context.now);
      if (`${body.month}-01` > today) {
        throw new DomainError('invalid', 'A month’s pay run is prepared once the month has started.', {
          month: 'Not a month to come',
        });
      }
      const gathered = await gatherRun(deps, context, db, body.month, today);
      const state = await context.run(payRun.payRunStream(body.month), payRun.payRunDecider, {
        type: 'PreparePayRun',
        run: gathered,
        actor: { role: context.user.role, tutorId: context.user.tutorId },
      });
      const prepared = state.status === 'none' ? gathered : state.run;
      return {
        payRun: {
          payRunId: prepared.payRunId,
          month: prepared.month,
          total: toPounds(payRun.payableTotal(prepared)),
          tutors: payRun.payableLines(prepared).length,
          blocked: prepared.lines.length - payRun.payableLines(prepared).length,
          waiting: prepared.waiting.length,
        },
      };
    },
  });

  commandRoute<typeof payRunPaidBody, { month: string }>(app, deps, {
    url: '/api/pay-runs/paid/:month',
    roles: ['admin'],
    body: payRunPaidBody,
    handle: async ({ body, params }, context) => {
      const { month } = params;
      if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(month)) {
        throw new DomainError('invalid', 'Use a month like 2026-01.', { month: 'Use a month like 2026-01' });
      }
      // A tutor erased since the run was prepared is not in its bank file: nor are they recorded as paid.
      const run = await context.load(payRun.payRunStream(month), payRun.payRunDecider);
      const leftOut: string[] = [];
      for (const line of run.status === 'prepared' ? payRun.payableLines(run.run) : []) {
        const bank = await context.load(payRun.bankDetailsStream(line.tutorId), payRun.bankDetailsDecider);
        if (!bank.details || payRun.isErased(bank.details)) leftOut.push(line.tutorId);
      }
      const state = await context.run(payRun.payRunStream(month), payRun.payRunDecider, {
        type: 'MarkPayRunPaid',
        leftOut,
        month,
        date: body.date,
        statements: body.statements,
        today: todayIn(timeZone, context.now),
        paymentIdOf: (statementId) => payRunPaymentIdOf(month, statementId),
        actor: { role: context.user.role, tutorId: context.user.tutorId },
      });
      if (state.status !== 'paid') throw new DomainError('not_found', 'There is no pay run for that month.');
      // The payments are recorded on the statements by the reactor: the answer waits (boundedly) for
      // it, so the run's statements read as paid; a slow or stopped reactor shows as under way.
      await context.settle([PAY_RUNS_REACTOR]);
      return {
        payRun: { payRunId: state.paid.payRunId, month, paidOn: state.paid.date, payments: state.paid.payments.length },
      };
    },
  });
}
