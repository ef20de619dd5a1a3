import type { LessonDetails, LessonEvent } from '@agency/contracts';
import type { RecordedEvent } from '@agency/platform';
import type pg from 'pg';
import { defineProjection } from '../projection';

type WithLesson = { tutorId: string; month: string; lesson: LessonDetails };
type MonthLock = { tutorId: string; month: string; invoiceId: string };

/**
 * Lesson events carry the lesson's full values, so recording and changing both overwrite. Any
 * number of lessons (distinct ids) in one statement: a rebuild writes a batch's lessons at once.
 */
function upsertLessons(sql: pg.ClientBase, rows: WithLesson[]) {
  const column = <T>(value: (row: WithLesson) => T) => rows.map(value);
  return sql.query(
    `insert into lessons (id, tutor_id, month, engagement_id, student_id, date, duration_hundredths, rate_pence,
       amount_pence, amount_edited, commission_bp, commission_pence, partner_bp, partner_commission_pence)
     select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::date[], $7::bigint[],
       $8::bigint[], $9::bigint[], $10::boolean[], $11::int[], $12::bigint[], $13::int[], $14::bigint[])
     on conflict (id) do update set date = excluded.date, duration_hundredths = excluded.duration_hundredths,
       rate_pence = excluded.rate_pence, amount_pence = excluded.amount_pence, amount_edited = excluded.amount_edited,
       commission_bp = excluded.commission_bp, commission_pence = excluded.commission_pence,
       partner_bp = excluded.partner_bp, partner_commission_pence = excluded.partner_commission_pence`,
    [
      column((row) => row.lesson.lessonId),
      column((row) => row.tutorId),
      column((row) => row.month),
      column((row) => row.lesson.engagementId),
      column((row) => row.lesson.studentId),
      column((row) => row.lesson.date),
      column((row) => row.lesson.duration),
      column((row) => row.lesson.ratePence),
      column((row) => row.lesson.amountPence),
      column((row) => row.lesson.amountEdited),
      column((row) => row.lesson.commissionBp),
      column((row) => row.lesson.commissionPence),
      column((row) => row.lesson.partnerBp),
      column((row) => row.lesson.partnerCommissionPence),
    ],
  );
}

const lockMonth = (sql: pg.ClientBase, { tutorId, month, invoiceId }: MonthLock) =>
  sql.query('insert into locked_months (tutor_id, month, invoice_id) values ($1, $2, $3) on conflict do nothing', [
    tutorId,
    month,
    invoiceId,
  ]);
const unlockMonth = (sql: pg.ClientBase, { tutorId, month, invoiceId }: MonthLock) =>
  sql.query('delete from locked_months where tutor_id = $1 and month = $2 and invoice_id = $3', [
    tutorId,
    month,
    invoiceId,
  ]);

/**
 * A batch at once: each lesson's last values in one upsert, the lessons removed (and not
 * recorded again later in the batch) in one delete, run first; month locks, rare, in order.
 */
async function applyLessonBatch(sql: pg.ClientBase, events: RecordedEvent[]) {
  const upserts = new Map<string, WithLesson>();
  const removed = new Set<string>();
  const locks: RecordedEvent[] = [];
  for (const event of events) {
    if (event.type === 'LessonRecorded' || event.type === 'LessonChanged') {
      const data = event.data as WithLesson;
      upserts.set(data.lesson.lessonId, data);
    } else if (event.type === 'LessonRemoved') {
      const { lessonId } = event.data as { lessonId: string };
      upserts.delete(lessonId);
      removed.add(lessonId);
    } else if (event.type === 'TimesheetMonthLocked' || event.type === 'TimesheetMonthUnlocked') {
      locks.push(event);
    }
  }
  if (removed.size > 0) await sql.query('delete from lessons where id = any($1::text[])', [[...removed]]);
  if (upserts.size > 0) await upsertLessons(sql, [...upserts.values()]);
  for (const event of locks) {
    const lock = event.data as MonthLock;
    await (event.type === 'TimesheetMonthLocked' ? lockMonth(sql, lock) : unlockMonth(sql, lock));
  }
}

export const lessonsProjection = defineProjection<LessonEvent>({
  name: 'lessons',
  version: 2,
  migrations: ['007_lessons.sql', '040_lessons_paging.sql'],
  handlers: {
    LessonRecorded: (sql, { data }) => upsertLessons(sql, [data]),
    LessonChanged: (sql, { data }) => upsertLessons(sql, [data]),
    LessonRemoved: (sql, { data }) => sql.query('delete from lessons where id = $1', [data.lessonId]),
    TimesheetMonthLocked: (sql, { data }) => lockMonth(sql, data),
    TimesheetMonthUnlocked: (sql, { data }) => unlockMonth(sql, data),
  },
  applyBatch: applyLessonBatch,
});
