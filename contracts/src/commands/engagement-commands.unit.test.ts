import { describe, expect, it } from 'vitest';
import { engagementBody } from './engagement-commands';
import { invoicePaymentBody, invoiceSaveBody } from './invoice-commands';
import { lessonBody, readDuration } from './lesson-commands';

const messages = (result: { success: boolean; error?: { issues: { message: string }[] } }) =>
  result.error?.issues.map((issue) => issue.message) ?? [];

const newEngagement = {
  tutorId: 't1',
  studentId: 's1',
  rate: '40.00',
  commissionPct: '25',
  partnerPct: 10,
  startDate: '2026-01-05',
  subjects: ['Maths', 'Physics', 'Maths'],
};

describe('engagement body', () => {
  it('reads numbers typed into forms and drops repeated subjects', () => {
    const body = engagementBody.parse(newEngagement);
    expect(body).toMatchObject({ rate: 40, commissionPct: 25, partnerPct: 10, subjects: ['Maths', 'Physics'] });
    expect(body.endDate).toBeUndefined();
  });

  it('defaults missing commission and partner percentages to 0', () => {
    const { commissionPct: _c, partnerPct: _p, ...rest } = newEngagement;
    expect(engagementBody.parse({ ...rest, partnerPct: null })).toMatchObject({ commissionPct: 0, partnerPct: 0 });
  });

  it("uses the spec's messages", () => {
    const { rate: _r, ...noRate } = newEngagement;
    expect(messages(engagementBody.safeParse(noRate))).toEqual(['Rate is required']);
    expect(messages(engagementBody.safeParse({ ...newEngagement, rate: ' ' }))).toEqual(['Rate is required']);
    expect(messages(engagementBody.safeParse({ ...newEngagement, commissionPct: '' }))).toEqual([
      'Commission % is required',
    ]);
    expect(messages(engagementBody.safeParse({ ...newEngagement, partnerPct: '' }))).toEqual(['Partner % is required']);
  });

  it('refuses a non-numeric or negative rate and percentages outside 0–100', () => {
    expect(messages(engagementBody.safeParse({ ...newEngagement, rate: 'forty' }))).toEqual(['Rate must be a number']);
    expect(messages(engagementBody.safeParse({ ...newEngagement, rate: -1 }))).toEqual(['Rate cannot be negative']);
    expect(messages(engagementBody.safeParse({ ...newEngagement, commissionPct: 101 }))).toEqual([
      'Commission % must be between 0 and 100',
    ]);
    expect(messages(engagementBody.safeParse({ ...newEngagement, partnerPct: '-5' }))).toEqual([
      'Partner % must be between 0 and 100',
    ]);
  });

  it('needs a student for a new engagement but not for a change', () => {
    const { studentId: _s, ...noStudent } = newEngagement;
    expect(messages(engagementBody.safeParse(noStudent))).toEqual(['Student is required']);
    expect(engagementBody.safeParse({ ...noStudent, id: 'e1' }).success).toBe(true);
  });

  it('refuses subjects that are not on the list', () => {
    expect(engagementBody.safeParse({ ...newEngagement, subjects: ['Astrology'] }).success).toBe(false);
  });
});

describe('lesson body', () => {
  it('defaults the duration to 1 hour and leaves the amount to the domain', () => {
    const body = lessonBody.parse({ tutorId: 't1', lesson: { engagementId: 'e1', date: '2026-01-05' } });
    expect(body.lesson).toEqual({ engagementId: 'e1', date: '2026-01-05', duration: 1 });
  });

  it('reads an edited amount typed as text; a blank amount means not edited', () => {
    const lesson = { engagementId: 'e1', date: '2026-01-05', duration: '1.5' };
    expect(lessonBody.parse({ tutorId: 't1', lesson: { ...lesson, amount: '55.5' } }).lesson).toMatchObject({
      duration: 1.5,
      amount: 55.5,
    });
    expect(lessonBody.parse({ tutorId: 't1', lesson: { ...lesson, amount: '' } }).lesson.amount).toBeUndefined();
  });

  it('refuses a negative duration', () => {
    const result = lessonBody.safeParse({
      tutorId: 't1',
      lesson: { engagementId: 'e1', date: '2026-01-05', duration: -1 },
    });
    expect(messages(result)).toEqual(['Duration cannot be negative']);
  });
});

describe("a lesson's duration, as the grid and the server read it", () => {
  const hundredths = (typed: string | number) => readDuration(typed);

  it('reads decimal hours, with or without a unit; a number alone is hours', () => {
    expect(hundredths('1.5')).toEqual({ hundredths: 150 });
    expect(hundredths(' 2 ')).toEqual({ hundredths: 200 });
    expect(hundredths('.5')).toEqual({ hundredths: 50 });
    expect(hundredths('1.')).toEqual({ hundredths: 100 });
    expect(hundredths('0')).toEqual({ hundredths: 0 });
    expect(hundredths('0.33')).toEqual({ hundredths: 33 });
    expect(hundredths('1.5h')).toEqual({ hundredths: 150 });
    expect(hundredths('2 hours')).toEqual({ hundredths: 200 });
    expect(hundredths('1 HR')).toEqual({ hundredths: 100 });
    expect(hundredths('24')).toEqual({ hundredths: 2400 });
    expect(hundredths('024.00')).toEqual({ hundredths: 2400 });
  });

  it('keeps hundredths of an hour, half-up, as every duration is', () => {
    expect(hundredths('1.333')).toEqual({ hundredths: 133 });
    expect(hundredths('1.335')).toEqual({ hundredths: 134 });
    expect(hundredths('1.005')).toEqual({ hundredths: 101 });
    expect(hundredths(1.005)).toEqual({ hundredths: 101 });
    expect(hundredths('23.999')).toEqual({ hundredths: 2400 });
  });

  it('reads hours and minutes: 1:30, 1h30, 1h 30m', () => {
    expect(hundredths('1:30')).toEqual({ hundredths: 150 });
    expect(hundredths('0:45')).toEqual({ hundredths: 75 });
    expect(hundredths('1:20')).toEqual({ hundredths: 133 });
    expect(hundredths('0:40')).toEqual({ hundredths: 67 });
    expect(hundredths('24:00')).toEqual({ hundredths: 2400 });
    expect(hundredths('1h30')).toEqual({ hundredths: 150 });
    expect(hundredths('1h 30m')).toEqual({ hundredths: 150 });
    expect(hundredths('2 hrs 15 mins')).toEqual({ hundredths: 225 });
  });

  it('reads minutes with their unit: 90m, 45 min, 20 minutes', () => {
    expect(hundredths('90m')).toEqual({ hundredths: 150 });
    expect(hundredths('45 min')).toEqual({ hundredths: 75 });
    expect(hundredths('20 minutes')).toEqual({ hundredths: 33 });
    expect(hundredths('1M')).toEqual({ hundredths: 2 });
    expect(hundredths('0m')).toEqual({ hundredths: 0 });
    expect(hundredths('1440m')).toEqual({ hundredths: 2400 });
  });

  it('reads a JSON number as decimal hours', () => {
    expect(hundredths(1.5)).toEqual({ hundredths: 150 });
    expect(hundredths(0)).toEqual({ hundredths: 0 });
    expect(hundredths(1e-7)).toEqual({ hundredths: 0 });
  });

  it('refuses a number alone over 24 hours, saying how to write minutes', () => {
    expect(hundredths('90')).toEqual({ refused: 'Duration cannot be more than 24 hours: for 90 minutes, write 90m' });
    expect(hundredths('24.01')).toEqual({ refused: 'Duration cannot be more than 24 hours' });
    expect(hundredths('5000')).toEqual({ refused: 'Duration cannot be more than 24 hours' });
    expect(hundredths('9'.repeat(32))).toEqual({ refused: 'Duration cannot be more than 24 hours' });
    expect(hundredths(24.01)).toEqual({ refused: 'Duration cannot be more than 24 hours' });
    expect(hundredths(1e21)).toEqual({ refused: 'Duration cannot be more than 24 hours' });
  });

  it('refuses more than a day in any form', () => {
    expect(hundredths('1441m')).toEqual({ refused: 'Duration cannot be more than 24 hours (1440 minutes)' });
    expect(hundredths(`${'9'.repeat(30)}m`)).toEqual({ refused: 'Duration cannot be more than 24 hours' });
    expect(hundredths('24:01')).toEqual({ refused: 'Duration cannot be more than 24 hours' });
    expect(hundredths('99999:00')).toEqual({ refused: 'Duration cannot be more than 24 hours' });
    expect(hundredths('25h')).toEqual({ refused: 'Duration cannot be more than 24 hours' });
  });

  it('refuses what it does not read, and says which forms it does', () => {
    const notUnderstood = { refused: 'Duration must be hours (1.5 or 1:30) or minutes (90m)' };
    for (const typed of ['abc', '.', 'h', '1,5', '1.5.2', '1:5', '1:300', '1.5m', '1:30h', '+1', '1 1', '90s', '£1']) {
      expect(hundredths(typed), typed).toEqual(notUnderstood);
    }
    expect(hundredths('1:60')).toEqual({ refused: 'The minutes after the hours must be 0 to 59' });
    expect(hundredths('1h75')).toEqual({ refused: 'The minutes after the hours must be 0 to 59' });
  });

  it('refuses nothing typed, a negative, a non-number and a text over 32 characters', () => {
    expect(hundredths('')).toEqual({ refused: 'Duration is required' });
    expect(hundredths('   ')).toEqual({ refused: 'Duration is required' });
    expect(hundredths('-1')).toEqual({ refused: 'Duration cannot be negative' });
    expect(hundredths('-0:30')).toEqual({ refused: 'Duration cannot be negative' });
    expect(hundredths(-0.5)).toEqual({ refused: 'Duration cannot be negative' });
    expect(hundredths(Number.NaN)).toEqual({ refused: 'Duration must be a number' });
    expect(hundredths(Number.POSITIVE_INFINITY)).toEqual({ refused: 'Duration must be a number' });
    expect(hundredths('1'.repeat(33))).toEqual({ refused: 'Duration is too long (32 characters at most)' });
  });

  it('is what the lesson body takes: the typed form in, hours out', () => {
    const lesson = { engagementId: 'e1', date: '2026-01-05' };
    const read = (duration: unknown) => lessonBody.safeParse({ tutorId: 't1', lesson: { ...lesson, duration } });
    expect(read('1:30').data?.lesson.duration).toBe(1.5);
    expect(read('90m').data?.lesson.duration).toBe(1.5);
    expect(read('1:20').data?.lesson.duration).toBe(1.33);
    expect(read(2).data?.lesson.duration).toBe(2);
    expect(messages(read('90'))).toEqual(['Duration cannot be more than 24 hours: for 90 minutes, write 90m']);
    expect(messages(read(true))).toEqual(['Duration is required']);
  });
});

describe('invoice bodies', () => {
  it('reads year and month from strings', () => {
    expect(invoiceSaveBody.parse({ tutorId: 't1', year: '2026', month: '3' })).toMatchObject({ year: 2026, month: 3 });
    expect(invoiceSaveBody.safeParse({ tutorId: 't1', year: 2026, month: 13 }).success).toBe(false);
  });

  it('needs a payment above 0', () => {
    const payment = { invoiceId: 'i1', date: '2026-02-01' };
    expect(invoicePaymentBody.parse({ ...payment, amount: '12.50' }).amount).toBe(12.5);
    expect(messages(invoicePaymentBody.safeParse({ ...payment, amount: 0 }))).toEqual(['Amount must be more than 0']);
  });
});
