import { describe, expect, it } from 'vitest';
import { activationBody, newPasswordBody, resetRequestBody } from './commands/auth-commands';
import { childBody, contactBody } from './commands/client-commands';
import { engagementBody } from './commands/engagement-commands';
import { invoicePaymentBody, invoiceSaveBody } from './commands/invoice-commands';
import { lessonBody } from './commands/lesson-commands';
import { tutorBody } from './commands/tutor-commands';
import { newUserBody } from './commands/user-commands';
import { isDecimalText, LIMITS } from './limits';
import { calendarDate } from './values';

const messages = (result: { success: boolean; error?: { issues: { message: string }[] } }) =>
  result.error?.issues.map((issue) => issue.message) ?? [];

const MEGABYTE = 'x'.repeat(1024 * 1024);
const FORTY_THOUSAND_DIGITS = '1'.repeat(40_000);

const lesson = (fields: object) =>
  lessonBody.safeParse({ tutorId: 't1', lesson: { engagementId: 'e1', date: '2026-01-05', ...fields } });
const engagement = (fields: object) =>
  engagementBody.safeParse({
    tutorId: 't1',
    studentId: 's1',
    rate: 40,
    commissionPct: 25,
    partnerPct: 10,
    startDate: '2026-01-05',
    subjects: ['Maths'],
    ...fields,
  });
const contact = {
  firstName: 'Ann',
  lastName: 'Lee',
  address: ['1 Road'],
  postcode: 'OX1 1AA',
  email: 'ann@example.com',
  phone: [{ type: 'Home', number: '0100' }],
};

describe('calendar dates', () => {
  it('accepts 1900-01-01 to 2100-12-31 and refuses years outside it, such as 0000 and 9999', () => {
    expect(calendarDate.safeParse('1900-01-01').success).toBe(true);
    expect(calendarDate.safeParse('2100-12-31').success).toBe(true);
    for (const date of ['0000-01-01', '1899-12-31', '2101-01-01', '9999-12-31']) {
      expect(messages(calendarDate.safeParse(date))).toEqual(['Use a date between 1900-01-01 and 2100-12-31']);
    }
  });

  it('refuses a year-0000 lesson date and a megabyte of date', () => {
    expect(lesson({ date: '0000-01-01' }).success).toBe(false);
    expect(lesson({ date: MEGABYTE }).success).toBe(false);
  });

  it('bounds the invoice year at 2100', () => {
    expect(messages(invoiceSaveBody.safeParse({ tutorId: 't1', year: 9999, month: 1 }))).toEqual([
      'Year must be 2100 or earlier',
    ]);
  });
});

describe('money, rates, durations', () => {
  it('refuses a lesson amount over £100,000 (the 30,000,000-pound lesson)', () => {
    expect(lesson({ amount: 100_000 }).success).toBe(true);
    expect(messages(lesson({ amount: 30_000_000 }))).toEqual(['Amount cannot be more than £100,000']);
    expect(messages(lesson({ amount: '100000.01' }))).toEqual(['Amount cannot be more than £100,000']);
  });

  it('refuses a payment over £100,000', () => {
    const payment = { invoiceId: 'i1', date: '2026-02-01' };
    expect(invoicePaymentBody.safeParse({ ...payment, amount: '£100,000.00' }).success).toBe(true);
    expect(messages(invoicePaymentBody.safeParse({ ...payment, amount: 100_000.01 }))).toEqual([
      'Amount cannot be more than £100,000',
    ]);
  });

  it('refuses a rate over £10,000 an hour', () => {
    expect(engagement({ rate: 10_000 }).success).toBe(true);
    expect(messages(engagement({ rate: 1e12 }))).toEqual(['Rate cannot be more than £10,000']);
  });

  it('refuses a duration over 24 hours', () => {
    expect(lesson({ duration: 24 }).success).toBe(true);
    expect(messages(lesson({ duration: 24.01 }))).toEqual(['Duration cannot be more than 24 hours']);
  });

  it('refuses a 40,000-digit duration and a megabyte amount by their length, not by parsing them', () => {
    expect(messages(lesson({ duration: FORTY_THOUSAND_DIGITS }))).toEqual([
      'Duration is too long (32 characters at most)',
    ]);
    expect(messages(lesson({ amount: MEGABYTE }))).toEqual(['Amount is too long (32 characters at most)']);
    expect(messages(engagement({ rate: `${'9'.repeat(40_000)}x` }))).toEqual([
      'Rate is too long (32 characters at most)',
    ]);
  });

  it('reads decimals of up to 32 characters, with one point at most', () => {
    expect(isDecimalText('12.50')).toBe(true);
    expect(isDecimalText('-.5')).toBe(true);
    expect(isDecimalText('7.')).toBe(true);
    expect(isDecimalText('1'.repeat(LIMITS.maxNumericLength))).toBe(true);
    expect(isDecimalText('1'.repeat(LIMITS.maxNumericLength + 1))).toBe(false);
    for (const text of ['', '.', '1.2.3', '1e5', '0x10', '12a', '--1', ' 1']) expect(isDecimalText(text)).toBe(false);
  });
});

describe('text', () => {
  it('refuses a megabyte in any text field of a contact, child or tutor', () => {
    for (const field of ['firstName', 'lastName', 'postcode', 'email']) {
      expect(messages(contactBody.safeParse({ ...contact, [field]: MEGABYTE }))[0]).toMatch(/^Too long/);
    }
    expect(contactBody.safeParse({ ...contact, address: [MEGABYTE] }).success).toBe(false);
    expect(contactBody.safeParse({ ...contact, phone: [{ type: 'Home', number: MEGABYTE }] }).success).toBe(false);
    expect(contactBody.safeParse({ ...contact, id: MEGABYTE }).success).toBe(false);
    expect(childBody.safeParse({ firstName: MEGABYTE, lastName: 'Lee', dob: '2015-01-01' }).success).toBe(false);
    expect(tutorBody.safeParse({ contact, tutor: { username: MEGABYTE, invoicePrefix: 'AL' } }).success).toBe(false);
  });

  it('refuses e-mail addresses longer than 254 characters', () => {
    const email = `${'a'.repeat(245)}@example.com`;
    expect(messages(contactBody.safeParse({ ...contact, email }))).toEqual(['Too long (254 characters at most)']);
  });

  it('refuses a megabyte of ids', () => {
    expect(lesson({ engagementId: MEGABYTE }).success).toBe(false);
    expect(engagement({ tutorId: MEGABYTE }).success).toBe(false);
    expect(invoicePaymentBody.safeParse({ invoiceId: MEGABYTE, date: '2026-02-01', amount: 1 }).success).toBe(false);
  });

  it('refuses long passwords and usernames before anything hashes them', () => {
    const password = 'p'.repeat(LIMITS.maxPasswordLength + 1);
    expect(newUserBody.safeParse({ username: 'ann', password, role: 'admin', name: 'Ann' }).success).toBe(false);
    expect(activationBody.safeParse({ activationCode: 'c', username: 'ann', password }).success).toBe(false);
    expect(newPasswordBody.safeParse({ resetToken: 't', password: MEGABYTE }).success).toBe(false);
    expect(resetRequestBody.safeParse({ username: MEGABYTE }).success).toBe(false);
    expect(
      activationBody.safeParse({ activationCode: MEGABYTE, username: 'ann', password: 'long-enough' }).success,
    ).toBe(false);
  });

  it('bounds the number of subjects', () => {
    expect(messages(engagement({ subjects: Array(1000).fill('Maths') }))).toEqual(['Choose at most 28 subjects']);
  });
});
