import { z } from 'zod';
import { LIMITS } from '../limits';
import { commandId } from '../values';
import { numberFromForm, poundsFromForm } from './engagement-commands';

/** At most this many reminders per invoice, and none later than this many days after its due date. */
export const REMINDER_LIMITS = { maxSteps: 10, maxDaysAfterDue: 3650, maxLateFeePence: 100_000 } as const;

/**
 * `POST /api/agency/reminders` (admins): the reminder schedule, days after the due date of each
 * reminder, e.g. `[7, 14, 30]` (or the text "7, 14, 30"); empty turns reminders off. `lateFee` is
 * pounds charged once per invoice and step (0: none). See docs/reminders.md.
 */
export const reminderScheduleBody = z.object({
  commandId,
  days: z
    .union([
      z.array(
        numberFromForm('A reminder day is required', 'A reminder day').pipe(
          z
            .number()
            .int('Reminder days are whole days')
            .min(1, 'A reminder is at least 1 day after the due date')
            .max(REMINDER_LIMITS.maxDaysAfterDue, `At most ${REMINDER_LIMITS.maxDaysAfterDue} days after the due date`),
        ),
      ),
      z
        .string()
        .max(200, 'Too long (200 characters at most)')
        .transform((text, ctx) => {
          const parts = text.split(/[\s,]+/).filter(Boolean);
          if (!parts.every((part) => /^\d{1,4}$/.test(part))) {
            ctx.addIssue({ code: 'custom', message: 'Use whole days separated by commas, like 7, 14, 30' });
            return z.NEVER;
          }
          return parts.map(Number);
        }),
    ])
    .pipe(
      z
        .array(
          z
            .number()
            .int()
            .min(1, 'A reminder is at least 1 day after the due date')
            .max(REMINDER_LIMITS.maxDaysAfterDue, `At most ${REMINDER_LIMITS.maxDaysAfterDue} days after the due date`),
        )
        .max(REMINDER_LIMITS.maxSteps, `At most ${REMINDER_LIMITS.maxSteps} reminders`)
        .refine((days) => days.every((day, i) => i === 0 || day > (days[i - 1] as number)), {
          message: 'List the days in increasing order, each once (like 7, 14, 30)',
        }),
    ),
  lateFee: poundsFromForm('Late fee is required (0 for none)', 'Late fee', {
    max: Math.min(REMINDER_LIMITS.maxLateFeePence, LIMITS.maxMoneyPence) / 100,
  }),
});
export type ReminderScheduleBody = z.input<typeof reminderScheduleBody>;

/** The schedule as `GET /api/agency/reminders` answers it and the save returns it; the fee in pounds. */
export const reminderScheduleAnswer = z.object({ days: z.array(z.number()), lateFee: z.number() });
export type ReminderScheduleAnswer = z.infer<typeof reminderScheduleAnswer>;
