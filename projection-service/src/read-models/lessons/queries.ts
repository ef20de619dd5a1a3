import {
  calendarDate,
  type LessonDetails,
  lessonListAnswer,
  lessonListQuery,
  redactForRole,
  type SessionUser,
  type TimesheetAnswer,
  timesheetAnswer,
  timesheetQuery,
} from '@agency/contracts';
import { engagement, timesheet, toHours, toPounds } from '@agency/domain';
import { forbidden, HttpError } from '@agency/platform';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type pg from 'pg';
import type { z } from 'zod';
import { answeringAsOf } from '../../audit/as-of';
import { requireSignIn } from '../../signed-in';
import { penceFrom } from '../money-columns';
import { decodeCursor, encodeCursor, listChanged } from '../paging';
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

const TUTOR_NAME = `coalesce(t.first_name || ' ' || t.last_name, '')`;
const STUDENT_NAME = `coalesce(ch.first_name || ' ' || ch.last_name, '')`;

export async function lessonQueries(fastify: FastifyInstance, { db }: { db: pg.Pool }) {
  requireSignIn(fastify);
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  /** Whether a cursor's lesson is in this selection (an empty page after it is then just the end). */
  const inSelection = async (lessonId: string, month: string, tutorId: string | null) =>
    ((
      await db.query('select 1 from lessons where id = $1 and month = $2 and ($3::text is null or tutor_id = $3)', [
        lessonId,
        month,
        tutorId,
      ])
    ).rowCount ?? 0) > 0;

  const list = { querystring: lessonListQuery, response: { 200: lessonListAnswer } };
  app.get('/api/lessons', { schema: list }, async (request) => {
    const user = request.signedIn;
    const { year, month: monthNumber, limit, cursor } = request.query;
    const month = `${year}-${String(monthNumber).padStart(2, '0')}`;
    const tutorId = whoseLessons(user, request.query.tutorId);
    // A cursor is the last lesson shown: its date and id.
    const [afterDate, afterId] =
      cursor === undefined ? [null, null] : decodeCursor(cursor, 2, ([date]) => calendarDate.safeParse(date).success);
    const [found, whole] = await Promise.all([
      // One page in the list's order after the cursor's lesson, whose names are looked up in the
      // same selection (a cursor of another month or tutor finds nothing). From the cursor's date
      // on, the (month, date) index gives the rows in date order: only the page's days are read.
      // One row more than the page tells whether another follows.
      db.query(
        `with after as (
           select l.date, ${TUTOR_NAME} as tutor_name, ${STUDENT_NAME} as student_name, l.id
             from lessons l left join tutors t on t.id = l.tutor_id left join children ch on ch.id = l.student_id
            where l.id = $3 and l.month = $1 and ($2::text is null or l.tutor_id = $2)
         )
         select ${LESSON_COLUMNS}, ${TUTOR_NAME} as tutor_name, ${STUDENT_NAME} as student_name,
                lm.invoice_id is not null as locked, ${answeringAsOf() ? 'null::text' : 'money_model_on(l.engagement_id, l.date)'} as money_model
           from lessons l
           left join tutors t on t.id = l.tutor_id
           left join children ch on ch.id = l.student_id
           left join locked_months lm on lm.tutor_id = l.tutor_id and lm.month = l.month
          where l.month = $1 and ($2::text is null or l.tutor_id = $2)
            and ($3::text is null or (l.date >= $5::date and
                 (l.date, ${TUTOR_NAME}, ${STUDENT_NAME}, l.id) > (select date, tutor_name, student_name, id from after)))
          order by l.date, tutor_name, student_name, l.id
          limit $4`,
        [month, tutorId, afterId, limit + 1, afterDate],
      ),
      db.query(
        // The month's lock for one tutor in the same round trip (every query of a request costs).
        `select count(*)::int as total, coalesce(sum(amount_pence), 0) as amount_pence,
                coalesce(sum(commission_pence), 0) as commission_pence,
                coalesce(sum(partner_commission_pence), 0) as partner_commission_pence,
                (select invoice_id from locked_months where tutor_id = $2 and month = $1) as invoice_id
           from lessons where month = $1 and ($2::text is null or tutor_id = $2)`,
        [month, tutorId],
      ),
    ]);
    if (afterId !== null && found.rows.length === 0 && !(await inSelection(afterId, month, tutorId))) {
      throw listChanged();
    }
    const page = found.rows.slice(0, limit);
    const last = page.at(-1);
    const details = page.map(toLessonDetails);
    const totals = whole.rows[0];
    // Spec §5/§6: adding needs someone to add for (an admin must pick a tutor) and an open month.
    const canAddLessons =
      tutorId !== null &&
      timesheet.mayRecordFor({ role: user.role, tutorId: user.tutorId ?? null }, tutorId) &&
      totals.invoice_id === null;
    // The Partner Share column is for staff: the one visibility rule drops it from a tutor's answer.
    return redactForRole(user.role, {
      month,
      lessons: page.map((row, index) => {
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
          // Named only when another than the spec's, whose answer stays as it was.
          ...(row.money_model === 'tutor-pays-commission' || row.money_model === null
            ? {}
            : { model: row.money_model }),
        };
      }),
      total: totals.total,
      nextCursor: found.rows.length > limit && last ? encodeCursor([last.day, last.id]) : null,
      totals: {
        amount: toPounds(penceFrom(totals.amount_pence)),
        commission: toPounds(penceFrom(totals.commission_pence)),
        partnerCommission: toPounds(penceFrom(totals.partner_commission_pence)),
      },
      canAddLessons,
      invoiceId: totals.invoice_id,
    });
  });

  const weekView = timesheetView(db);
  app.get(
    '/api/lessons/timesheet',
    { schema: { querystring: timesheetQuery, response: { 200: timesheetAnswer } } },
    async (request) => weekView(request.signedIn, request.query),
  );
}

/** A tutor's week of lessons as the timesheet grid draws it; a lesson save answers with it too. */
export const timesheetView =
  (db: pg.Pool) =>
  async (user: SessionUser, query: z.output<typeof timesheetQuery>): Promise<TimesheetAnswer> => {
    const { from, to, month } = query;
    const tutorId = whoseLessons(user, query.tutorId);
    if (!tutorId) throw badQuery('tutorId', 'Choose a tutor');
    const [engagements, lessons, locked] = await Promise.all([
      // Only those the grid can show (alive in the range, or with a lesson in it): a tutor of ten
      // years has a hundred engagements, whose folded states are read and parsed otherwise.
      db.query(
        `select e.state, coalesce(ch.first_name || ' ' || ch.last_name, '') as student_name
           from engagements e left join children ch on ch.id = e.student_id
          where e.tutor_id = $1
            and ((e.start_date <= $3::date and (e.end_date is null or e.end_date >= $2::date))
              or exists (select 1 from lessons l where l.tutor_id = $1 and l.month = $4 and l.engagement_id = e.id
                            and l.date between $2::date and $3::date))`,
        [tutorId, from, to, month],
      ),
      db.query(`select ${LESSON_COLUMNS} from lessons l where l.tutor_id = $1 and l.month = $2`, [tutorId, month]),
      db
        .query('select 1 from locked_months where tutor_id = $1 and month = $2', [tutorId, month])
        .then((found) => (found.rowCount ?? 0) > 0),
    ]);
    const rows: GridEngagement[] = engagements.rows.flatMap((row) => {
      const summary = engagement.summaryOf(row.state);
      return summary ? [{ summary, studentName: row.student_name }] : [];
    });
    return redactForRole(user.role, {
      tutorId,
      ...timesheetGrid({ month, from, to, engagements: rows, lessons: lessons.rows.map(toLessonDetails), locked }),
    });
  };
