import {
  type EngagementAnswer,
  engagementAnswer,
  engagementOnAnswer,
  engagementOnParams,
  engagementParams,
  engagementQuery,
  redactForRole,
  type SessionUser,
} from '@agency/contracts';
import { engagement } from '@agency/domain';
import { notFound } from '@agency/platform';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type pg from 'pg';
import { requireSignIn } from '../../signed-in';

const percentOf = (fraction: number) => Math.round(fraction * 10_000) / 100;

/**
 * One engagement with its history periods, and the period in force on a date (what lessons and
 * invoices price by, exposed for auditors). Staff read any engagement; a tutor only their own.
 */
export async function engagementQueries(fastify: FastifyInstance, { db }: { db: pg.Pool }) {
  requireSignIn(fastify);
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const one = engagementView(db);
  app.get(
    '/api/tutors/engagement/:tutorId/:engagementId',
    { schema: { params: engagementParams, querystring: engagementQuery, response: { 200: engagementAnswer } } },
    async (request) => one(request.signedIn, request.params),
  );

  app.get(
    '/api/tutors/engagement/:tutorId/:engagementId/on/:date',
    { schema: { params: engagementOnParams, response: { 200: engagementOnAnswer } } },
    async (request) => {
      const user = request.signedIn;
      const { tutorId, engagementId, date } = request.params;
      const { state } = await loadEngagement(db, user, tutorId, engagementId);
      const period = engagement.periodInForce(engagement.periodsOf(state), date);
      if (!period) throw notFound(`The engagement was not in force on ${date}.`);
      return redactForRole(user.role, {
        engagementId,
        date,
        period: engagement.periodRow(period),
      });
    },
  );
}

const mayRead = (user: SessionUser, tutorId: string) => user.role !== 'tutor' || user.tutorId === tutorId;

async function loadEngagement(db: pg.Pool, user: SessionUser, tutorId: string, engagementId: string) {
  if (!mayRead(user, tutorId)) throw notFound('There is no such engagement.');
  const found = await db.query(
    `select e.state, e.student_id, t.first_name || ' ' || t.last_name as tutor_name,
            ch.first_name, ch.last_name
       from engagements e
       left join tutors t on t.id = e.tutor_id
       left join children ch on ch.id = e.student_id
      where e.id = $1 and e.tutor_id = $2`,
    [engagementId, tutorId],
  );
  const row = found.rows[0];
  if (!row) throw notFound('There is no such engagement.');
  return {
    state: row.state as engagement.EngagementState,
    tutorName: (row.tutor_name as string | null) ?? '',
    firstName: (row.first_name as string | null) ?? '',
    lastName: (row.last_name as string | null) ?? '',
  };
}

/** One engagement with its history, as its page shows it; a change of its terms answers with it too. */
export const engagementView =
  (db: pg.Pool) =>
  async (
    user: SessionUser,
    { tutorId, engagementId }: { tutorId: string; engagementId: string },
  ): Promise<EngagementAnswer> => {
    const { state, tutorName, firstName, lastName } = await loadEngagement(db, user, tutorId, engagementId);
    const summary = engagement.summaryOf(state);
    if (!summary) throw notFound('There is no such engagement.');
    const history = engagement.historyRows(summary.periods);
    const latest = history[0]!;
    const studentName = [firstName, lastName].filter(Boolean).join(' ');
    // A tutor reads their own terms but not the partner's share (nor its history).
    return redactForRole(user.role, {
      engagement: {
        id: summary.engagementId,
        tutor: { id: summary.tutorId, name: tutorName },
        tutorId: summary.tutorId,
        studentId: summary.studentId,
        name: studentName,
        studentName,
        firstName,
        lastName,
        rate: latest.rate,
        commissionRate: latest.commissionRate,
        partnerRate: latest.partnerRate,
        commissionPct: percentOf(latest.commissionRate),
        partnerPct: percentOf(latest.partnerRate),
        startDate: summary.startDate,
        // An ongoing engagement sends no endDate (spec §4).
        ...(summary.endDate ? { endDate: summary.endDate } : {}),
        subjects: latest.subjects,
        history,
      },
    });
  };
