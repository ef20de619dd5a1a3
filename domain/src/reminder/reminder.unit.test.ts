import type { ReminderEvent } from '@agency/contracts';
import { describe, expect, it } from 'vitest';
import { specFor } from '../testing/given-when-then';
import { agedBucket, dueStep, lateFeeLine, type RecordedReminder, remindersDecider, scheduleDecider } from './reminder';

const admin = { role: 'admin' as const };
const reminder = (step: number, daysAfterDue: number): RecordedReminder => ({
  invoiceId: 'inv-1',
  clientId: 'client-1',
  step,
  daysAfterDue,
  date: '2026-04-01',
  dueDate: '2026-03-01',
  outstandingPence: 17_500,
  lateFee: null,
});
const recorded = (data: RecordedReminder): ReminderEvent => ({ type: 'FamilyInvoiceReminderRecorded', data });

describe('the reminder schedule', () => {
  const given = specFor(scheduleDecider);
  it('is set by an admin; the same schedule again records nothing', () => {
    const set: ReminderEvent = { type: 'ReminderScheduleSet', data: { days: [7, 14, 30], lateFeePence: 1_000 } };
    given([])
      .when({ type: 'SetReminderSchedule', schedule: { days: [7, 14, 30], lateFeePence: 1_000 }, actor: admin })
      .thenEvents([set]);
    given([set])
      .when({ type: 'SetReminderSchedule', schedule: { days: [7, 14, 30], lateFeePence: 1_000 }, actor: admin })
      .thenEvents([]);
  });
  it('refuses days out of order, too many steps, a fee out of bounds, and anyone but an admin', () => {
    const when = (days: number[], lateFeePence = 0, role: 'admin' | 'partner' = 'admin') =>
      given([]).when({ type: 'SetReminderSchedule', schedule: { days, lateFeePence }, actor: { role } });
    when([14, 7]).thenRefused('invalid', /increasing/);
    when([7, 7]).thenRefused('invalid', /increasing/);
    when([0]).thenRefused('invalid');
    when([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]).thenRefused('invalid', /At most 10/);
    when([7], 100_001).thenRefused('invalid');
    when([7], 1.5).thenRefused('invalid');
    when([7], 0, 'partner').thenRefused('forbidden');
  });
});

describe('an invoice’s reminders', () => {
  const given = specFor(remindersDecider);
  it('record each step once: a second run of the same step, or an earlier step after it, records nothing', () => {
    given([])
      .when({ type: 'RecordReminder', reminder: reminder(1, 7) })
      .thenEvents([recorded(reminder(1, 7))]);
    given([recorded(reminder(1, 7))])
      .when({ type: 'RecordReminder', reminder: reminder(1, 7) })
      .thenEvents([]);
    given([recorded(reminder(2, 14))])
      .when({ type: 'RecordReminder', reminder: reminder(1, 7) })
      .thenEvents([]);
    given([recorded(reminder(1, 7))])
      .when({ type: 'RecordReminder', reminder: reminder(2, 14) })
      .thenEvents([recorded(reminder(2, 14))]);
  });
  it('refuses a reminder of nothing owed', () => {
    given([])
      .when({ type: 'RecordReminder', reminder: { ...reminder(1, 7), outstandingPence: 0 } })
      .thenRefused('invalid');
  });
});

describe('the step due today', () => {
  const days = [7, 14, 30];
  it('is the latest step whose day has come, after the last one recorded', () => {
    expect(dueStep(days, '2026-03-01', '2026-03-07', 0)).toBeNull();
    expect(dueStep(days, '2026-03-01', '2026-03-08', 0)).toEqual({ step: 1, daysAfterDue: 7 });
    expect(dueStep(days, '2026-03-01', '2026-03-14', 1)).toBeNull();
    expect(dueStep(days, '2026-03-01', '2026-03-15', 1)).toEqual({ step: 2, daysAfterDue: 14 });
    // 40 days late with nothing sent yet: the third step only, the first two are not sent late.
    expect(dueStep(days, '2026-03-01', '2026-04-10', 0)).toEqual({ step: 3, daysAfterDue: 30 });
    expect(dueStep(days, '2026-03-01', '2027-01-01', 3)).toBeNull();
    expect(dueStep([], '2026-03-01', '2027-01-01', 0)).toBeNull();
  });
});

describe('aged debt', () => {
  it('puts an amount in its column by days past due', () => {
    const today = '2026-06-30';
    expect(agedBucket('2026-07-01', today)).toBe('current');
    expect(agedBucket('2026-06-30', today)).toBe('current');
    expect(agedBucket('2026-06-29', today)).toBe('1-30');
    expect(agedBucket('2026-05-31', today)).toBe('1-30');
    expect(agedBucket('2026-05-30', today)).toBe('31-60');
    expect(agedBucket('2026-05-01', today)).toBe('31-60');
    expect(agedBucket('2026-04-30', today)).toBe('61-90');
    expect(agedBucket('2026-04-01', today)).toBe('61-90');
    expect(agedBucket('2026-03-31', today)).toBe('90+');
  });
  it('names the invoice and the step on a late fee', () => {
    expect(lateFeeLine('OTA00012', 2, 14, '2026-03-01')).toBe(
      'Late payment fee: invoice OTA00012 (due 01 Mar 2026), reminder 2, 14 days overdue',
    );
  });
});
