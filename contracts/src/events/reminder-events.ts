import { z } from 'zod';
import { calendarDate } from '../values';
import { defineEvent, type EventOf } from './define';

/**
 * The agency's reminder schedule (stream `agency-reminder-schedule`), set by an admin in Settings:
 * `days` after an invoice's due date for each reminder, ascending (empty: no reminders), and a late
 * fee charged once per invoice and reminder step (0: none). See docs/reminders.md.
 */
export const ReminderScheduleSet = defineEvent(
  'ReminderScheduleSet',
  1,
  z.object({
    days: z.array(z.number().int().positive()),
    lateFeePence: z.number().int().min(0),
  }),
);

/**
 * One reminder of an overdue family invoice (stream `family-invoice-reminders-{invoiceId}`): step n
 * is the schedule's nth day, recorded once per invoice and step whatever runs it. `lateFee` names the
 * fee invoice that follows from it (its id derives from the invoice and the step), when a fee applies.
 */
export const FamilyInvoiceReminderRecorded = defineEvent(
  'FamilyInvoiceReminderRecorded',
  1,
  z.object({
    invoiceId: z.string(),
    clientId: z.string(),
    step: z.number().int().positive(),
    /** The schedule's days after the due date for this step, when it was recorded. */
    daysAfterDue: z.number().int().positive(),
    date: calendarDate,
    dueDate: calendarDate,
    outstandingPence: z.number().int().min(0),
    lateFee: z.object({ invoiceId: z.string(), amountPence: z.number().int().positive() }).nullable(),
  }),
);

export const reminderEvents = [ReminderScheduleSet, FamilyInvoiceReminderRecorded] as const;
export type ReminderEvent = EventOf<(typeof reminderEvents)[number]>;
