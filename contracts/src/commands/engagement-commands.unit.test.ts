import { describe, expect, it } from 'vitest';
import { engagementBody } from './engagement-commands';
import { invoicePaymentBody, invoiceSaveBody } from './invoice-commands';
import { lessonBody } from './lesson-commands';

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
