import { z } from 'zod';
import { LIMITS } from '../limits';
import { calendarDate, calendarMonth } from '../values';
import { PAGE_SIZE, pageQuery, queryId } from './query-values';

/** Who recorded an event: the users read model's name for the event's user id, and the role it acted in. */
export const eventAuthorView = z.object({ userId: z.string(), name: z.string(), role: z.string() });

/** One recorded event as an auditor reads it: when (agency time), who, what changed in words, and why. */
export const recordedEventView = z.object({
  streamId: z.string(),
  revision: z.number().int(),
  type: z.string(),
  /** The instant it was recorded (ISO 8601, UTC). */
  recordedAt: z.string(),
  /** The same instant in the agency's time zone: `YYYY-MM-DD HH:mm:ss`. */
  when: z.string(),
  who: eventAuthorView,
  what: z.string(),
  commandId: z.string(),
  /** Links the events of one user action, across streams. */
  correlationId: z.string(),
});
export type RecordedEventView = z.infer<typeof recordedEventView>;

/** A stream id as the event store names it: `engagement-…`, `timesheet-{tutorId}-{yyyy-mm}`, `family-invoice-…`. */
export const historyParams = z.object({
  streamId: z
    .string()
    .min(1)
    .max(200)
    .regex(/^[A-Za-z0-9_.:-]+$/, 'Not a stream id'),
});
export { mayReadHistoryOf } from '../role-rules';

export const historyAnswer = z.object({ streamId: z.string(), events: z.array(recordedEventView) });
export type HistoryAnswer = z.infer<typeof historyAnswer>;

export const invoiceTraceParams = z.object({ id: queryId });

/** The engagement period in force on a lesson's date, and the event that set its values. */
export const tracedPeriodView = z.object({
  startDate: calendarDate,
  endDate: calendarDate.nullable(),
  rate: z.number(),
  commissionRate: z.number(),
  partnerRate: z.number(),
  setBy: recordedEventView.nullable(),
});

export const tracedLessonView = z.object({
  lessonId: z.string(),
  engagementId: z.string(),
  studentId: z.string(),
  date: calendarDate,
  /** Hours. */
  duration: z.number(),
  rate: z.number(),
  amount: z.number(),
  amountEdited: z.boolean(),
  commission: z.number(),
  commissionRate: z.number(),
  partnerCommission: z.number(),
  /** The lesson's own events (recorded, changed), oldest first. */
  events: z.array(recordedEventView),
  period: tracedPeriodView.nullable(),
  /** Empty when the lesson's figures follow from its period (amount = duration × rate unless typed in). */
  differences: z.array(z.string()),
});
export type TracedLessonView = z.infer<typeof tracedLessonView>;

export const tracedItemView = z.object({
  description: z.string(),
  commissionRate: z.number(),
  earnings: z.number(),
  commission: z.number(),
  /** What the item's lessons add up to: equal to `earnings` and `commission` unless flagged. */
  lessonsEarnings: z.number(),
  lessonsCommission: z.number(),
  matches: z.boolean(),
  lessons: z.array(tracedLessonView),
});

export const invoiceTraceAnswer = z.object({
  invoice: z.object({
    id: z.string(),
    reference: z.string(),
    tutorId: z.string(),
    month: calendarMonth,
    date: calendarDate,
    earnings: z.number(),
    commission: z.number(),
    partnerCommission: z.number(),
    lessonCount: z.number().int(),
    generatedBy: recordedEventView,
  }),
  items: z.array(tracedItemView),
  /** The items added up, beside the invoice's own totals. */
  itemsEarnings: z.number(),
  itemsCommission: z.number(),
  /** True when every lesson adds up to its item, every item to the total, and no lesson is off its period. */
  matches: z.boolean(),
  /** Each difference in words; empty when the figures agree. */
  differences: z.array(z.string()),
});
export type InvoiceTraceAnswer = z.infer<typeof invoiceTraceAnswer>;

/** Days from one calendar date to another (`YYYY-MM-DD`, real dates): 0 for the same day. */
const daysFrom = (from: string, to: string) =>
  (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000;

/**
 * `GET /api/activity?from&to[&userId][&limit&cursor][&format=csv]`: the commands recorded in a
 * period (agency dates, both included; `LIMITS.maxActivityDays` at most), a page at a time
 * (`cursor` is the previous page's `nextCursor`). `format=csv` answers the whole period as CSV
 * and takes no page.
 */
export const activityQuery = z
  .object({
    from: calendarDate,
    to: calendarDate,
    userId: z.preprocess((value) => (value === '' ? undefined : value), queryId.min(1).optional()),
    format: z.enum(['json', 'csv']).optional(),
    ...pageQuery(PAGE_SIZE.activity),
  })
  .refine((query) => query.from <= query.to, { message: 'The period must end on or after it starts', path: ['to'] })
  .refine((query) => daysFrom(query.from, query.to) < LIMITS.maxActivityDays, {
    message: `The period can be ${LIMITS.maxActivityDays} days at most: choose a "to" date closer to "from"`,
    path: ['to'],
  });
export type ActivityQuery = z.input<typeof activityQuery>;

/**
 * What a stream is about, as people name it: its `kind` ("Family", "Tutor", "Engagement", …), its
 * `name` from the read models ("Erased" once the subject's personal data is erased) and the
 * `path` of its page in the app (null: it has none).
 */
export const activitySubjectView = z.object({
  streamId: z.string(),
  kind: z.string(),
  name: z.string(),
  path: z.string().nullable(),
});
export type ActivitySubjectView = z.infer<typeof activitySubjectView>;

/** One command: who gave it, when, what its events did in words, and on which entities (streams). */
export const activityEntryView = z.object({
  commandId: z.string(),
  /** When its first event was recorded (ISO 8601, UTC), and the same in agency time. */
  recordedAt: z.string(),
  when: z.string(),
  who: eventAuthorView,
  streams: z.array(z.string()),
  /** The same streams, named (one each, in the same order). */
  subjects: z.array(activitySubjectView),
  what: z.array(z.string()),
});
export type ActivityEntryView = z.infer<typeof activityEntryView>;

export const activityAnswer = z.object({
  from: calendarDate,
  to: calendarDate,
  commands: z.array(activityEntryView),
  /** Everyone who can sign in, for the filter. */
  users: z.array(z.object({ id: z.string(), name: z.string(), role: z.string() })),
  /** Asks for the commands after these (`cursor`); null: the period has no more. */
  nextCursor: z.string().nullable(),
});
export type ActivityAnswer = z.infer<typeof activityAnswer>;
