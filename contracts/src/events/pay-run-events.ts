import { z } from 'zod';
import { calendarDate, calendarMonth } from '../values';
import { defineEvent, type EventOf } from './define';

/** One pay statement a run pays (or lists as waiting), with what was still owed on it when prepared. */
const statementOwed = z.object({
  statementId: z.string(),
  month: calendarMonth,
  reference: z.string(),
  owedPence: z.number().int().min(0),
});

/**
 * Why a tutor owed pay is not in the bank file: no bank details recorded, or their details erased.
 */
export const payRunBlocks = ['no-bank-details', 'bank-details-erased'] as const;

/**
 * One tutor's line of a pay run: the confirmed statements still owed, their sum, the reference the
 * tutor's bank shows, and which version of the tutor's bank details the file pays into (the stream
 * revision, so the file re-downloads the same), or why the line cannot be paid (`blocked`).
 */
const payRunLine = z.object({
  tutorId: z.string(),
  statements: z.array(statementOwed),
  amountPence: z.number().int().positive(),
  reference: z.string(),
  bankDetailsRevision: z.number().int().min(0).nullable(),
  blocked: z.enum(payRunBlocks).nullable(),
});

/**
 * A month's pay run prepared (stream `pay-run-{month}`, its id the month): the tutors to pay from
 * the confirmed pay statements of that month and before still owed, and the statements left out
 * because their tutor has not confirmed them (`waiting`). Prepared again before it is paid, the
 * latest preparation is the run. See docs/money-models.md, "Pay runs".
 */
export const PayRunPrepared = defineEvent(
  'PayRunPrepared',
  1,
  z.object({
    payRunId: z.string(),
    month: calendarMonth,
    date: calendarDate,
    lines: z.array(payRunLine),
    waiting: z.array(statementOwed.extend({ tutorId: z.string() })),
  }),
);

/**
 * The run's bank file was paid on `date`: each payment the run makes, one per statement of a line
 * that could be paid, its id derived from the run and the statement. The pay-run reactor records
 * each on its statement (capped at what is still owed then), once however often it runs.
 */
export const PayRunPaid = defineEvent(
  'PayRunPaid',
  1,
  z.object({
    payRunId: z.string(),
    month: calendarMonth,
    date: calendarDate,
    payments: z.array(
      z.object({
        paymentId: z.string(),
        tutorId: z.string(),
        statementId: z.string(),
        /** The statement's month: its stream is the tutor's statement of that month. */
        month: calendarMonth,
        amountPence: z.number().int().positive(),
      }),
    ),
  }),
);

export const payRunEvents = [PayRunPrepared, PayRunPaid] as const;
export type PayRunEvent = EventOf<(typeof payRunEvents)[number]>;
