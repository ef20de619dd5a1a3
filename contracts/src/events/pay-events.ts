import { z } from 'zod';
import { calendarDate, calendarMonth } from '../values';
import { defineEvent, type EventOf } from './define';

/**
 * One line of a tutor's pay statement (docs/money-models.md, "Pay statements"): a lesson taught
 * under `agency-sells-tuition`, with its values as the timesheet records them when the statement
 * is issued. Money is integer pence, duration hundredths of an hour.
 * - `lesson`: a lesson of the statement's month, paid now;
 * - `held`: its pay waits for the family invoice that holds it to be paid (not in the total);
 * - `released`: held on an earlier statement, its family invoice now paid: paid now;
 * - `adjustment`: a lesson recorded, changed or removed after the statement covering its month was
 *   issued: `paidBeforePence` is what earlier statements paid for it, `linePence` the difference.
 * Children are named by id only (their names are their family's personal data, read from the
 * family's stream by the screens and the document).
 */
export const payStatementLine = z.object({
  kind: z.enum(['lesson', 'held', 'released', 'adjustment']),
  lessonId: z.string(),
  /** The timesheet month the lesson is in. */
  lessonMonth: calendarMonth,
  engagementId: z.string(),
  studentId: z.string(),
  /**
   * The child's family: the document reads the child's name from its stream as it was when issued.
   * Always set by the statements this product issues; a line without it prints no name.
   */
  clientId: z.string().optional(),
  date: calendarDate,
  /** The lesson's values now; all 0 for a lesson removed since it was paid (`removed`). */
  duration: z.number().int().min(0),
  amountPence: z.number().int().min(0),
  /** The agency's share: the lesson's commission as recorded on it. */
  sharePence: z.number().int().min(0),
  /** amount − share. */
  payPence: z.number().int(),
  paidBeforePence: z.number().int(),
  /** What the line adds to the total: 0 when held, pay − paid before otherwise. */
  linePence: z.number().int(),
  removed: z.boolean(),
});
export type PayStatementLine = z.infer<typeof payStatementLine>;

const statementKey = { statementId: z.string(), tutorId: z.string(), month: calendarMonth };

/**
 * A tutor's pay statement for a month, stream `pay-statement-{tutorId}-{month}` (its id is
 * `{tutorId}-{month}`), issued once and never changed. `carriedPence` (≤ 0) is what the tutor's
 * previous statement left owed to the agency (its total was below 0); `totalPayPence` is the sum of
 * the lines and what is carried, and may be below 0 (then nothing is paid on it, and it carries).
 */
export const PayStatementIssued = defineEvent(
  'PayStatementIssued',
  1,
  z.object({
    ...statementKey,
    reference: z.string(),
    date: calendarDate,
    lines: z.array(payStatementLine),
    carriedPence: z.number().int().max(0),
    totalPayPence: z.number().int(),
  }),
);

/** The tutor confirmed the statement online (as the spec's invoice confirmation). */
export const PayStatementConfirmed = defineEvent('PayStatementConfirmed', 1, z.object(statementKey));

/** A payment to the tutor on the statement (a pay run's), once per `paymentId`, never above what is owed. */
export const TutorPaymentRecorded = defineEvent(
  'TutorPaymentRecorded',
  1,
  z.object({
    ...statementKey,
    paymentId: z.string(),
    payRunId: z.string(),
    date: calendarDate,
    amountPence: z.number().int().positive(),
  }),
);

/**
 * An admin prepared the month's pay statements (stream `pay-statements-prepared`, once per month,
 * months in order): the `pay-statements` reactor then issues each tutor's statement. `tutorIds` are
 * the tutors it issues for, as known when prepared.
 */
export const PayStatementsPrepared = defineEvent(
  'PayStatementsPrepared',
  1,
  z.object({ month: calendarMonth, date: calendarDate, tutorIds: z.array(z.string()) }),
);

export const payEvents = [
  PayStatementIssued,
  PayStatementConfirmed,
  TutorPaymentRecorded,
  PayStatementsPrepared,
] as const;
export type PayEvent = EventOf<(typeof payEvents)[number]>;
