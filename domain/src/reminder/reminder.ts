import type { AgedDebtBucket, ReminderEvent } from '@agency/contracts';
import { REMINDER_LIMITS } from '@agency/contracts';
import { addDays, displayDate } from '../shared/calendar';
import { type Decider, DomainError } from '../shared/decider';
import { checkDate, checkId, checkPence } from '../shared/limits';
import type { Pence } from '../shared/money';
import type { Actor } from '../timesheet/timesheet';

/**
 * Reminders of overdue family invoices (docs/reminders.md): the agency's schedule, stream
 * `agency-reminder-schedule`, and each invoice's reminders, stream
 * `family-invoice-reminders-{invoiceId}`, where step n is recorded once: a second runner (another
 * instance, a restart, a retry) finds it recorded and appends nothing.
 */
export type ReminderSchedule = { days: readonly number[]; lateFeePence: Pence };

/** No schedule set: no reminders, no fee. */
export const NO_SCHEDULE: ReminderSchedule = { days: [], lateFeePence: 0 };

type ScheduleCommand = { type: 'SetReminderSchedule'; schedule: ReminderSchedule; actor: Actor };

const refuse = (field: string, message: string): never => {
  throw new DomainError('invalid', `${message}.`, { [field]: message });
};

/** The bounds of the settings form again, so a stored schedule always makes sense to the chore. */
export function checkSchedule({ days, lateFeePence }: ReminderSchedule) {
  if (!Array.isArray(days) || days.length > REMINDER_LIMITS.maxSteps) {
    refuse('days', `At most ${REMINDER_LIMITS.maxSteps} reminders`);
  }
  days.forEach((day, index) => {
    if (!Number.isInteger(day) || day < 1 || day > REMINDER_LIMITS.maxDaysAfterDue) {
      refuse('days', `Reminder days are 1 to ${REMINDER_LIMITS.maxDaysAfterDue} days after the due date`);
    }
    if (index > 0 && day <= (days[index - 1] as number)) refuse('days', 'List the days in increasing order, each once');
  });
  checkPence(lateFeePence, { field: 'lateFee', label: 'Late fee', max: REMINDER_LIMITS.maxLateFeePence });
}

export const scheduleDecider: Decider<ScheduleCommand, ReminderEvent, ReminderSchedule> = {
  initialState: () => NO_SCHEDULE,
  evolve: (state, event) =>
    event.type === 'ReminderScheduleSet' ? { days: event.data.days, lateFeePence: event.data.lateFeePence } : state,
  decide: (command, state) => {
    if (command.actor.role !== 'admin') throw new DomainError('forbidden', 'Only an admin can change the reminders.');
    checkSchedule(command.schedule);
    const { days, lateFeePence } = command.schedule;
    if (JSON.stringify(days) === JSON.stringify(state.days) && lateFeePence === state.lateFeePence) return [];
    return [{ type: 'ReminderScheduleSet', data: { days: [...days], lateFeePence } }];
  },
};

export const scheduleStream = () => 'agency-reminder-schedule';

export type RecordedReminder = Extract<ReminderEvent, { type: 'FamilyInvoiceReminderRecorded' }>['data'];
/** An invoice's reminders so far, by step. */
export type RemindersState = { steps: ReadonlyMap<number, RecordedReminder> };
type ReminderCommand = { type: 'RecordReminder'; reminder: RecordedReminder };

export const lastStepOf = (state: RemindersState) => Math.max(0, ...state.steps.keys());

export const remindersDecider: Decider<ReminderCommand, ReminderEvent, RemindersState> = {
  initialState: () => ({ steps: new Map() }),
  evolve: (state, event) =>
    event.type === 'FamilyInvoiceReminderRecorded'
      ? { steps: new Map(state.steps).set(event.data.step, event.data) }
      : state,
  decide: ({ reminder }, state) => {
    checkId(reminder.invoiceId, 'invoiceId', 'The invoice id');
    checkDate(reminder.date, 'date');
    checkDate(reminder.dueDate, 'dueDate');
    checkPence(reminder.outstandingPence, { field: 'outstanding', label: 'Outstanding', positive: true });
    if (reminder.lateFee) {
      checkPence(reminder.lateFee.amountPence, {
        field: 'lateFee',
        label: 'Late fee',
        positive: true,
        max: REMINDER_LIMITS.maxLateFeePence,
      });
    }
    // Once per step, and never an earlier step after a later one (a step the schedule skipped stays skipped).
    if (reminder.step <= lastStepOf(state)) return [];
    return [{ type: 'FamilyInvoiceReminderRecorded', data: reminder }];
  },
};

export const remindersStream = (invoiceId: string) => `family-invoice-reminders-${invoiceId}`;

/**
 * The step an invoice is due for today: the latest step of the schedule whose day has come
 * (due date + its days ≤ today) and that is later than the last one recorded. Steps whose day
 * passed while a later one is due are skipped, not sent late in a burst (a schedule set or lengthened
 * after an invoice fell overdue starts at the step of today). null: nothing to send.
 */
export function dueStep(
  days: readonly number[],
  dueDate: string,
  today: string,
  lastStep: number,
): { step: number; daysAfterDue: number } | null {
  let found: { step: number; daysAfterDue: number } | null = null;
  days.forEach((daysAfterDue, index) => {
    if (addDays(dueDate, daysAfterDue) <= today) found = { step: index + 1, daysAfterDue };
  });
  const step = found as { step: number; daysAfterDue: number } | null;
  return step && step.step > lastStep ? step : null;
}

/** Whole days from `from` to `to` (negative when `to` is earlier). */
export const daysFrom = (from: string, to: string) =>
  Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);

/** Which aged-debt column an amount due on `dueDate` falls in today: not yet due is current. */
export function agedBucket(dueDate: string, today: string): AgedDebtBucket {
  const late = daysFrom(dueDate, today);
  if (late <= 0) return 'current';
  if (late <= 30) return '1-30';
  if (late <= 60) return '31-60';
  if (late <= 90) return '61-90';
  return '90+';
}

/** The one line of a late-fee invoice: which invoice, which reminder, how late. */
export const lateFeeLine = (reference: string, step: number, daysAfterDue: number, dueDate: string) =>
  `Late payment fee: invoice ${reference} (due ${displayDate(dueDate)}), reminder ${step}, ${daysAfterDue} days overdue`;
