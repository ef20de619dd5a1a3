import type { ReminderScheduleAnswer } from '@agency/contracts';
import { getJson, postJson } from '../../lib/http';

export type ReminderSchedule = ReminderScheduleAnswer;

/** The reminder schedule and late fee (admins; auditors read it). */
export const fetchReminderSchedule = (signal?: AbortSignal) =>
  getJson<ReminderSchedule>('/api/agency/reminders', signal);

/** Saves the schedule: days as typed ("7, 14, 30"; blank turns reminders off), the fee in pounds. */
export const saveReminderSchedule = (body: { days: string; lateFee: string; commandId: string }) =>
  postJson<{ reminders: ReminderSchedule }>('/api/agency/reminders', body).then((answer) => answer.reminders);
