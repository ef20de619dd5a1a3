import { z } from 'zod';
import { payRunBlocks } from '../events/pay-run-events';
import { calendarDate, calendarMonth, commandId } from '../values';

/**
 * `POST /api/tutors/bank-details/:tutorId` (admins only): the account a tutor's pay goes to. The
 * sort code is six digits (`12-34-56`, `12 34 56` or `123456`), the account number eight; a
 * building society account may need a roll number. See docs/money-models.md, "Pay runs".
 */
export const tutorBankDetailsBody = z.object({
  commandId,
  accountName: z.string({ error: 'Account name is required' }).trim().min(1, 'Account name is required').max(70),
  sortCode: z
    .string({ error: 'Sort code is required' })
    .trim()
    .regex(/^\d{2}([- ]?)\d{2}\1\d{2}$/, 'A sort code is six digits, like 12-34-56'),
  accountNumber: z
    .string({ error: 'Account number is required' })
    .transform((text) => text.replace(/ /g, ''))
    .pipe(z.string().regex(/^\d{8}$/, 'An account number is eight digits')),
  rollNumber: z.string().trim().max(18, 'A roll number is 18 characters at most').nullish(),
});
export type TutorBankDetailsBody = z.input<typeof tutorBankDetailsBody>;

/**
 * `GET /api/tutors/bank-details/:tutorId` (admins only): the tutor's bank details in full, or null
 * when none were recorded; `erased` when the tutor was erased (their details read "Erased").
 */
export const tutorBankDetailsAnswer = z.object({
  tutorId: z.string(),
  bankDetails: z
    .object({
      accountName: z.string(),
      sortCode: z.string(),
      accountNumber: z.string(),
      rollNumber: z.string().nullable(),
    })
    .nullable(),
  erased: z.boolean(),
});
export type TutorBankDetailsAnswer = z.infer<typeof tutorBankDetailsAnswer>;

/** `POST /api/pay-runs` (admins): prepare (or prepare again, until it is paid) the pay run of `month`. */
export const preparePayRunBody = z.object({ commandId, month: calendarMonth });
export type PreparePayRunBody = z.input<typeof preparePayRunBody>;

/**
 * `POST /api/pay-runs/paid/:month` (admins): the run's bank file was paid on `date`. `statements`:
 * the statements of the lines with bank details as the admin saw the run (the file they paid); the
 * run prepared again since with others is refused (409), so no statement is recorded as paid by a
 * file that did not hold it.
 */
export const payRunPaidBody = z.object({
  commandId,
  date: calendarDate,
  statements: z.array(z.string().min(1).max(200)).max(10_000).optional(),
});
export type PayRunPaidBody = z.input<typeof payRunPaidBody>;

const statementOwedView = z.object({
  statementId: z.string(),
  month: z.string(),
  reference: z.string(),
  /** Pounds still owed on it when the run was prepared. */
  owed: z.number(),
});

/**
 * `GET /api/pay-runs/:month` (admins): a run as prepared, amounts in pounds. A line's `account` is
 * the account number masked (`****5678`); `blocked` says why a line is not in the bank file.
 */
export const payRunAnswer = z.object({
  payRunId: z.string(),
  month: z.string(),
  preparedOn: z.string(),
  paidOn: z.string().nullable(),
  /** What the bank file pays in all. */
  total: z.number(),
  lines: z.array(
    z.object({
      tutorId: z.string(),
      tutorName: z.string(),
      amount: z.number(),
      reference: z.string(),
      account: z.string().nullable(),
      blocked: z.enum(payRunBlocks).nullable(),
      /** Before the run is paid: one of its statements was paid elsewhere since (prepare the run again). */
      paidElsewhere: z.boolean(),
      statements: z.array(statementOwedView),
    }),
  ),
  /** Statements owed whose tutor has not confirmed them yet: not in this run. */
  waiting: z.array(statementOwedView.extend({ tutorId: z.string(), tutorName: z.string() })),
});
export type PayRunAnswer = z.infer<typeof payRunAnswer>;

/** `GET /api/pay-runs` (admins): every run, the latest month first. */
export const payRunListAnswer = z.object({
  runs: z.array(
    z.object({
      payRunId: z.string(),
      month: z.string(),
      preparedOn: z.string(),
      paidOn: z.string().nullable(),
      total: z.number(),
      tutors: z.number(),
      blocked: z.number(),
    }),
  ),
});
export type PayRunListAnswer = z.infer<typeof payRunListAnswer>;
