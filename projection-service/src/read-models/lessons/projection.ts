import type { LessonDetails, LessonEvent } from '@agency/contracts';
import type pg from 'pg';
import { defineProjection } from '../projection';

type WithLesson = { tutorId: string; month: string; lesson: LessonDetails };

/** Lesson events carry the lesson's full values, so recording and changing both overwrite. */
function upsertLesson(sql: pg.ClientBase, { tutorId, month, lesson }: WithLesson) {
  return sql.query(
    `insert into lessons (id, tutor_id, month, engagement_id, student_id, date, duration_hundredths, rate_pence,
       amount_pence, amount_edited, commission_bp, commission_pence, partner_bp, partner_commission_pence)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
     on conflict (id) do update set date = $6, duration_hundredths = $7, rate_pence = $8, amount_pence = $9,
       amount_edited = $10, commission_bp = $11, commission_pence = $12, partner_bp = $13, partner_commission_pence = $14`,
    [
      lesson.lessonId,
      tutorId,
      month,
      lesson.engagementId,
      lesson.studentId,
      lesson.date,
      lesson.duration,
      lesson.ratePence,
      lesson.amountPence,
      lesson.amountEdited,
      lesson.commissionBp,
      lesson.commissionPence,
      lesson.partnerBp,
      lesson.partnerCommissionPence,
    ],
  );
}

export const lessonsProjection = defineProjection<LessonEvent>({
  name: 'lessons',
  version: 2,
  migrations: ['007_lessons.sql'],
  handlers: {
    LessonRecorded: (sql, { data }) => upsertLesson(sql, data),
    LessonChanged: (sql, { data }) => upsertLesson(sql, data),
    LessonRemoved: (sql, { data }) => sql.query('delete from lessons where id = $1', [data.lessonId]),
    TimesheetMonthLocked: (sql, { data: { tutorId, month, invoiceId } }) =>
      sql.query('insert into locked_months (tutor_id, month, invoice_id) values ($1, $2, $3) on conflict do nothing', [
        tutorId,
        month,
        invoiceId,
      ]),
    TimesheetMonthUnlocked: (sql, { data: { tutorId, month, invoiceId } }) =>
      sql.query('delete from locked_months where tutor_id = $1 and month = $2 and invoice_id = $3', [
        tutorId,
        month,
        invoiceId,
      ]),
  },
});
