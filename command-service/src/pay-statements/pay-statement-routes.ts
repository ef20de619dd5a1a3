import { confirmPayStatementBody, preparePayStatementsBody } from '@agency/contracts';
import { payStatement, todayIn, toPounds } from '@agency/domain';
import { forbidden, notFound } from '@agency/platform';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { type CommandDependencies, commandRoute, requireReadModelsCaughtUp } from '../pipeline/command-pipeline';
import { PAY_STATEMENTS_REACTOR } from './pay-statement-reactor';

/** The tutor and month a statement id names (`{tutorId}-{yyyy-mm}`). */
export function parseStatementId(id: string): { tutorId: string; month: string } | undefined {
  const match = /^(.+)-(\d{4}-(?:0[1-9]|1[0-2]))$/.exec(id);
  return match ? { tutorId: match[1] as string, month: match[2] as string } : undefined;
}

type Issued = Extract<payStatement.PayStatementState, { status: 'issued' }>;

/** The events that decide which tutors the read models name as a month's candidates. */
const CANDIDATE_EVENTS = ['LessonRecorded', 'LessonChanged', 'LessonRemoved', 'LessonsRepriced', 'PayStatementIssued'];

const summary = ({ statement, confirmed, paidPence }: Issued) => ({
  id: statement.statementId,
  tutorId: statement.tutorId,
  month: statement.month,
  reference: statement.reference,
  date: statement.date,
  totalPay: toPounds(statement.totalPayPence),
  confirmed,
  paid: toPounds(paidPence),
});

/**
 * Pay statements (docs/money-models.md, "Pay statements"): an admin prepares a month's (the
 * `pay-statements` reactor issues each tutor's), and each tutor confirms their own (or an admin on
 * their behalf, as the spec's invoice confirmation).
 */
export async function payStatementRoutes(
  app: FastifyInstance,
  { deps, db, timeZone }: { deps: CommandDependencies; db: pg.Pool; timeZone: string },
) {
  const { payStatementDecider, payStatementStream, preparedDecider, preparedStream } = payStatement;

  commandRoute(app, deps, {
    url: '/api/pay-statements',
    roles: ['admin'],
    body: preparePayStatementsBody,
    handle: async ({ body }, { run, load, settle, user, now }) => {
      // The read models only find the candidates: tutors with lessons in the pay window, or a statement
      // in it (a lesson removed since it was paid). A lesson they do not show yet is paid next month;
      // while they cannot be brought up to now (stopped, or slower than the bound) nothing is
      // prepared, as a month is prepared once and every tutor they miss would miss it: a retry does.
      await requireReadModelsCaughtUp(
        deps,
        CANDIDATE_EVENTS,
        'The lessons and pay statements are still being brought up to date. Please try again in a moment.',
      );
      const window = payStatement.windowOf(body.month);
      const { rows } = await db.query<{ id: string }>(
        `select tutor_id as id from read.lessons where month >= $1 and month <= $2
          union select tutor_id from read.pay_statements where month >= $1 and month < $2
          order by 1`,
        [window[0], body.month],
      );
      const prepared = await run(preparedStream(), preparedDecider, {
        type: 'PreparePayStatements',
        month: body.month,
        date: todayIn(timeZone, now),
        tutorIds: rows.map((row) => row.id),
        actor: { role: user.role, tutorId: user.tutorId },
      });
      const settled = await settle([PAY_STATEMENTS_REACTOR]);
      const statements = [];
      for (const tutorId of prepared.months.get(body.month)?.tutorIds ?? []) {
        const state = await load(payStatementStream(tutorId, body.month), payStatementDecider);
        if (state.status === 'issued') statements.push(summary(state));
      }
      return { month: body.month, statements, underWay: !settled };
    },
  });

  commandRoute(app, deps, {
    url: '/api/pay-statements/confirm',
    roles: ['admin', 'partner', 'tutor'],
    body: confirmPayStatementBody,
    handle: async ({ body }, { run, load, user }) => {
      const key = parseStatementId(body.id);
      if (!key) throw notFound('There is no such pay statement.');
      // Checked before anything is read: another tutor learns nothing of this statement.
      if (user.role !== 'admin' && user.tutorId !== key.tutorId) {
        throw forbidden('Only the statement’s tutor or an admin can confirm it.');
      }
      const stream = payStatementStream(key.tutorId, key.month);
      if ((await load(stream, payStatementDecider)).status === 'none')
        throw notFound('There is no such pay statement.');
      const confirmed = await run(stream, payStatementDecider, {
        type: 'ConfirmPayStatement',
        actor: { role: user.role, tutorId: user.tutorId },
      });
      if (confirmed.status === 'none') throw notFound('There is no such pay statement.');
      return { statement: summary(confirmed) };
    },
  });
}
