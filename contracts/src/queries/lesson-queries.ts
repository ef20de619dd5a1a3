import { z } from 'zod';
import { timesheetGridAnswer } from '../answers/timesheet-grid';
import { moneyModel } from '../events/money-model-events';
import { calendarDate, calendarMonth, calendarYear, monthNumber } from '../values';
import { asOfMoment, PAGE_SIZE, pageAnswer, pageQuery, queryId } from './query-values';

/**
 * `GET /api/lessons?year&month&tutorId&limit&cursor`: a month's lessons, of one tutor or (staff,
 * blank) all, a page at a time (250 by default, at most 1000; `cursor` is the previous page's
 * `nextCursor`). One tutor's month fits in the default page.
 */
export const lessonListQuery = z.object({
  year: calendarYear,
  month: monthNumber,
  tutorId: queryId.optional(),
  asOf: asOfMoment,
  ...pageQuery(PAGE_SIZE.lessons),
});
export type LessonListQuery = z.input<typeof lessonListQuery>;

export const lessonView = z.object({
  id: z.string(),
  date: z.string(),
  tutor: z.string(),
  tutorId: z.string(),
  student: z.string(),
  studentId: z.string(),
  engagementId: z.string(),
  duration: z.number(),
  rate: z.number(),
  amount: z.number(),
  amountEdited: z.boolean(),
  commission: z.number(),
  /** Absent from a tutor's answer (visibility.ts). */
  partnerCommission: z.number().optional(),
  locked: z.boolean(),
  /** The money model the lesson is under on its date (docs/money-models.md); absent: the spec's, tutor-pays-commission. */
  model: moneyModel.optional(),
});
export type LessonView = z.infer<typeof lessonView>;

export const lessonListAnswer = z.object({
  month: calendarMonth,
  /** This page's lessons; `total` counts the month's, `nextCursor` asks for the next page (null: none). */
  lessons: z.array(lessonView),
  ...pageAnswer,
  /** Of the whole month (every page). */
  totals: z.object({ amount: z.number(), commission: z.number(), partnerCommission: z.number().optional() }),
  /** Whether the caller may add lessons here: someone to add for, and the month still open. */
  canAddLessons: z.boolean(),
  /** One tutor's month invoiced (its lessons locked by this invoice): View Invoice, not Generate Invoice. */
  invoiceId: z.string().nullable(),
});
export type LessonListAnswer = z.infer<typeof lessonListAnswer>;

/** `GET /api/lessons/timesheet`: one tutor's week grid; `month` is `YYYY-MM`, `from`/`to` its dates. */
export const timesheetQuery = z.object({
  month: calendarMonth,
  from: calendarDate,
  to: calendarDate,
  tutorId: queryId.optional(),
});
export type TimesheetQuery = z.input<typeof timesheetQuery>;

export const timesheetAnswer = timesheetGridAnswer.extend({ tutorId: z.string() });
export type TimesheetAnswer = z.infer<typeof timesheetAnswer>;
