import { z } from 'zod';
import { calendarDate, calendarMonth } from '../values';
import { defineEvent, type EventOf } from './define';

/**
 * A lesson as recorded, priced with the engagement period in force on its date. Money is
 * integer pence, rates basis points, duration hundredths of an hour (150 = 1.5 hours).
 */
export const lessonDetails = z.object({
  lessonId: z.string(),
  engagementId: z.string(),
  studentId: z.string(),
  date: calendarDate,
  duration: z.number().int().min(0),
  ratePence: z.number().int().min(0),
  amountPence: z.number().int().min(0),
  /** True when someone typed the amount instead of letting duration × rate decide it. */
  amountEdited: z.boolean(),
  commissionBp: z.number().int().min(0).max(10_000),
  commissionPence: z.number().int().min(0),
  partnerBp: z.number().int().min(0).max(10_000),
  partnerCommissionPence: z.number().int().min(0),
});
export type LessonDetails = z.infer<typeof lessonDetails>;

const timesheet = { tutorId: z.string(), month: calendarMonth };

export const LessonRecorded = defineEvent('LessonRecorded', 1, z.object({ ...timesheet, lesson: lessonDetails }));
/** The lesson's full new values, so a read model only overwrites. */
export const LessonChanged = defineEvent('LessonChanged', 1, z.object({ ...timesheet, lesson: lessonDetails }));
export const LessonRemoved = defineEvent('LessonRemoved', 1, z.object({ ...timesheet, lessonId: z.string() }));
/**
 * The engagement's terms changed from `from` (a rate change or a corrected period): these lessons
 * of it, each on or after that date in this open month, are priced again by the period now in
 * force on its date, with their full new values (a typed amount is kept). Follows the
 * engagement's change on the timesheet (docs/reactors.md, `lesson-repricing`).
 */
export const LessonsRepriced = defineEvent(
  'LessonsRepriced',
  1,
  z.object({ ...timesheet, engagementId: z.string(), from: calendarDate, lessons: z.array(lessonDetails).min(1) }),
);
/** The month was invoiced: no lesson of it can be recorded, changed or removed afterwards. */
export const TimesheetMonthLocked = defineEvent(
  'TimesheetMonthLocked',
  1,
  z.object({ ...timesheet, invoiceId: z.string() }),
);

/** The month's unconfirmed invoice was withdrawn: its lessons are open again. */
export const TimesheetMonthUnlocked = defineEvent(
  'TimesheetMonthUnlocked',
  1,
  z.object({ ...timesheet, invoiceId: z.string() }),
);

export const lessonEvents = [
  LessonRecorded,
  LessonChanged,
  LessonRemoved,
  LessonsRepriced,
  TimesheetMonthLocked,
  TimesheetMonthUnlocked,
] as const;
export type LessonEvent = EventOf<(typeof lessonEvents)[number]>;
