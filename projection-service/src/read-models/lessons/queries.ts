import {
  type LessonDetails,
  lessonListAnswer,
  lessonListQuery,
  redactForRole,
  type SessionUser,
  timesheetAnswer,
  timesheetQuery,
} from '@agency/contracts';
import { engagement, timesheet, toHours, toPounds } from '@agency/domain';
import { forbidden, HttpError } from '@agency/platform';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type pg from 'pg';
import { requireSignIn } from '../../signed-in';
import { penceFrom } from '../money-columns';
import { type GridEngagement, timesheetGrid } from './timesheet-grid';

const badQuery = (name: string, message: string) => new HttpError(400, 'invalid_input', message, { [name]: message });

/**
 * Whose lessons a user reads: a tutor (or a partner acting as one) only their own when they
 * name no one else; admins and partners any tutor, or all of them when `tutorId` is empty.
 */
function whoseLessons(user: SessionUser, asked: string | undefined): string | null {
  const tutorId = asked?.trim() || null;
  if (user.role === 'tutor') {
    if (!user.tutorId) throw forbidden('This account is not linked to a tutor.');
    if (tutorId && tutorId !== user.tutorId) throw forbidden('A tutor can see only their own lessons.');
    return user.tutorId;
  }
  return tutorId;
}

const toLessonDetails = (row: Record<string, unknown>): LessonDetails => ({
  lessonId: row.id as string,
  engagementId: row.engagement_id as string,
  studentId: row.student_id as string,
  date: row.day as string,
  duration: penceFrom(row.duration_hundredths),
  ratePence: penceFrom(row.rate_pence),
  amountPence: penceFrom(row.amount_pence),
  amountEdited: row.amount_edited as boolean,
  commissionBp: row.commission_bp as number,
  commissionPence: penceFrom(row.commission_pence),
  partnerBp: row.partner_bp as number,
  partnerCommissionPence: penceFrom(row.partner_commission_pence),
});

const LESSON_COLUMNS = `l.id, l.tutor_id, l.month, l.engagement_id, l.student_id, to_char(l.date, 'YYYY-MM-DD') as day,
  l.duration_hundredths, l.rate_pence, l.amount_pence, l.amount_edited, l.commission_bp, l.commission_pence,
  l.partner_bp, l.partner_commission_pence`;

export async function lessonQueries(fastify: FastifyInstance, { db }: { db: pg.Pool }) {
  requireSignIn(fastify);
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const isLocked = async (tutorId: string, month: string) =>
    ((await db.query('select 1 from locked_months where tutor_id = $1 and month = $2', [tutorId, month])).rowCount ??
      0) > 0;

  const list = { querystring: lessonListQuery, response: { 200: lessonListAnswer } };
  app.get('/api/lessons', { schema: list }, async (request) => {
    const user = request.signedIn;
    const { year, month: monthNumber } = request.query;
    const month = `${year}-${String(monthNumber).padStart(2, '0')}`;
    const tutorId = whoseLessons(user, request.query.tutorId);
    const found = await db.query(
      `select ${LESSON_COLUMNS},
              coalesce(t.first_name || ' ' || t.last_name, '') as tutor_name,
              coalesce(ch.first_name || ' ' || ch.last_name, '') as student_name,
              lm.invoice_id is not null as locked
         from lessons l
         left join tutors t on t.id = l.tutor_id
         left join children ch on ch.id = l.student_id
         left join locked_months lm on lm.tutor_id = l.tutor_id and lm.month = l.month
        where l.month = $1 and ($2::text is null or l.tutor_id = $2)
        order by l.date, tutor_name, student_name, l.id`,
      [month, tutorId],
    );
    const details = found.rows.map(toLessonDetails);
    const totals = timesheet.totalsOf(details);
    // Spec §5/§6: adding needs someone to add for (an admin must pick a tutor) and an open month.
    const canAddLessons =
      tutorId !== null &&
      timesheet.mayRecordFor({ role: user.role, tutorId: user.tutorId ?? null }, tutorId) &&
      !(await isLocked(tutorId, month));
    // The Partner Share column is for staff: the one visibility rule drops it from a tutor's answer.
    return redactForRole(user.role, {
      month,
      lessons: found.rows.map((row, index) => {
        const lesson = details[index];
        return {
          id: lesson.lessonId,
          date: lesson.date,
          tutor: row.tutor_name,
          tutorId: row.tutor_id,
          student: row.student_name,
          studentId: lesson.studentId,
          engagementId: lesson.engagementId,
          duration: toHours(lesson.duration),
          rate: toPounds(lesson.ratePence),
          amount: toPounds(lesson.amountPence),
          amountEdited: lesson.amountEdited,
          commission: toPounds(lesson.commissionPence),
          partnerCommission: toPounds(lesson.partnerCommissionPence),
          locked: row.locked,
        };
      }),
      totals: {
        amount: toPounds(totals.amountPence),
        commission: toPounds(totals.commissionPence),
        partnerCommission: toPounds(totals.partnerCommissionPence),
      },
      canAddLessons,
    });
  });

  app.get(
    '/api/lessons/timesheet',
    { schema: { querystring: timesheetQuery, response: { 200: timesheetAnswer } } },
    async (request) => {
      const user = request.signedIn;
      const { from, to, month } = request.query;
      const tutorId = whoseLessons(user, request.query.tutorId);
      if (!tutorId) throw badQuery('tutorId', 'Choose a tutor');
      const [engagements, lessons, locked] = await Promise.all([
        db.query(
          `select e.state, coalesce(ch.first_name || ' ' || ch.last_name, '') as student_name
             from engagements e left join children ch on ch.id = e.student_id
            where e.tutor_id = $1`,
          [tutorId],
        ),
        db.query(`select ${LESSON_COLUMNS} from lessons l where l.tutor_id = $1 and l.month = $2`, [tutorId, month]),
        isLocked(tutorId, month),
      ]);
      const rows: GridEngagement[] = engagements.rows.flatMap((row) => {
        const summary = engagement.summaryOf(row.state);
        return summary ? [{ summary, studentName: row.student_name }] : [];
      });
      return redactForRole(user.role, {
        tutorId,
        ...timesheetGrid({ month, from, to, engagements: rows, lessons: lessons.rows.map(toLessonDetails), locked }),
      });
    },
  );
}
