import type { ContactDetails, LessonDetails } from '@agency/contracts';
import { describe, expect, it } from 'vitest';
import { clientDecider } from '../client/client';
import { type EngagementCommand, type EngagementSummary, engagementDecider } from '../engagement/engagement';
import { invoiceDecider, invoiceSummary } from '../invoice/invoice';
import { specFor } from '../testing/given-when-then';
import { type TimesheetCommand, timesheetDecider } from '../timesheet/timesheet';
import { tutorDecider } from '../tutor/tutor';
import { userDecider } from '../user/user';
import { fold } from './decider';
import { checkContact } from './limits';

/**
 * The deciders' own bounds: a command that never passed a contract schema still cannot store an
 * event that a read model cannot hold.
 */
const MEGABYTE = 'x'.repeat(1024 * 1024);

const start: Extract<EngagementCommand, { type: 'StartEngagement' }> = {
  type: 'StartEngagement',
  engagementId: 'e1',
  tutorId: 't1',
  studentId: 's1',
  startDate: '2026-01-05',
  subjects: ['Maths'],
  otherOngoingWithSameStudent: false,
  ratePence: 4000,
  commissionBp: 2500,
  partnerBp: 1000,
};

const engagement = (ratePence: number): EngagementSummary => ({
  engagementId: 'e1',
  tutorId: 't1',
  studentId: 's1',
  startDate: '1900-01-01',
  endDate: null,
  periods: [{ startDate: '1900-01-01', endDate: null, ratePence, commissionBp: 2500, partnerBp: 1000, subjects: [] }],
});

const record = (over: Partial<Extract<TimesheetCommand, { type: 'RecordLesson' }>>): TimesheetCommand => ({
  type: 'RecordLesson',
  tutorId: 't1',
  month: '2026-03',
  lessonId: 'l1',
  engagement: engagement(4000),
  date: '2026-03-02',
  actor: { role: 'admin' },
  ...over,
});

const contact: ContactDetails = {
  id: 'contact-1',
  firstName: 'Ann',
  lastName: 'Lee',
  address: ['1 High St'],
  postcode: 'OX1 1AA',
  email: 'ann@example.com',
  phone: [{ type: 'Home', number: '01865 000000' }],
  dob: null,
};

describe('engagement bounds', () => {
  const given = specFor(engagementDecider);

  it('refuses a rate above £10,000 an hour; £10,000 is allowed', () => {
    given([])
      .when({ ...start, ratePence: 1_000_001 })
      .thenRefused('invalid', 'Rate cannot be more than £10,000.00');
    expect(
      engagementDecider.decide({ ...start, ratePence: 1_000_000 }, fold(engagementDecider, []), new Date()),
    ).toHaveLength(1);
  });

  it('refuses dates outside 1900–2100, such as year 0000', () => {
    given([])
      .when({ ...start, startDate: '0000-01-01' })
      .thenRefused('invalid', 'Use a date between 1900-01-01 and 2100-12-31');
    given([])
      .when({ ...start, startDate: '2026-02-30' })
      .thenRefused('invalid', 'Not a real date');
  });

  it('refuses a megabyte of subject or id', () => {
    given([])
      .when({ ...start, subjects: [MEGABYTE] })
      .thenRefused('invalid', 'too long');
    given([])
      .when({ ...start, studentId: MEGABYTE })
      .thenRefused('invalid', 'too long');
  });
});

describe('lesson bounds', () => {
  const given = specFor(timesheetDecider);

  it('refuses an edited amount above £100,000 (the 3,000,000,000-pence lesson)', () => {
    given([])
      .when(record({ amountPence: 3_000_000_000 }))
      .thenRefused('invalid', 'Amount cannot be more than £100,000.00');
  });

  it('refuses a duration above 24 hours', () => {
    given([])
      .when(record({ duration: 2_401 }))
      .thenRefused('invalid', 'Duration cannot be more than 24 hours');
  });

  it('refuses a priced lesson worth more than £100,000 (12 hours at £10,000)', () => {
    given([])
      .when(record({ engagement: engagement(1_000_000), duration: 1_200 }))
      .thenRefused('invalid', 'A lesson cannot be worth more than £100,000.00');
    given([])
      .when(record({ engagement: engagement(1_000_000), duration: 1_000 }))
      .thenEvents([expect.objectContaining({ type: 'LessonRecorded' })] as never);
  });

  it('refuses a lesson dated in year 0000', () => {
    given([])
      .when(record({ month: '0000-01', date: '0000-01-05' }))
      .thenRefused('invalid', 'Use a date between 1900-01-01 and 2100-12-31');
  });
});

describe('invoice bounds', () => {
  const generated = {
    type: 'InvoiceGenerated' as const,
    data: {
      invoiceId: 'i1',
      tutorId: 't1',
      month: '2026-03',
      reference: 'JS0001',
      date: '2026-04-01',
      items: [],
      lessonCount: 1,
      earningsPence: 4000,
      commissionPence: 1000,
      partnerCommissionPence: 100,
    },
  };

  it('refuses a payment above £100,000 or dated in year 0000', () => {
    const given = specFor(invoiceDecider);
    const pay = { type: 'RecordPayment' as const, paymentId: 'p1', actor: { role: 'admin' as const } };
    given([generated])
      .when({ ...pay, date: '2026-04-02', amountPence: 10_000_001 })
      .thenRefused('invalid', 'A payment cannot be more than £100,000.00');
    given([generated])
      .when({ ...pay, date: '0000-04-02', amountPence: 100 })
      .thenRefused('invalid', 'Use a date between');
  });

  it('sums the largest lessons a month can hold exactly, far below 2^53', () => {
    const lesson: LessonDetails = {
      lessonId: 'l',
      engagementId: 'e1',
      studentId: 's1',
      date: '2026-03-02',
      duration: 2_400,
      ratePence: 1_000_000,
      amountPence: 10_000_000,
      amountEdited: true,
      commissionBp: 10_000,
      commissionPence: 10_000_000,
      partnerBp: 10_000,
      partnerCommissionPence: 10_000_000,
    };
    const summary = invoiceSummary(Array.from({ length: 10_000 }, (_, i) => ({ ...lesson, lessonId: `l${i}` })));
    expect(summary.earningsPence).toBe(100_000_000_000);
    expect(Number.isSafeInteger(summary.earningsPence + summary.commissionPence)).toBe(true);
  });
});

describe('contact, tutor and user bounds', () => {
  it('refuses a megabyte in any contact field', () => {
    const given = specFor(clientDecider);
    for (const field of ['firstName', 'lastName', 'postcode', 'email'] as const) {
      given([])
        .when({
          type: 'RegisterClient',
          clientId: 'c1',
          startDate: '2026-11-22',
          contact: { ...contact, [field]: MEGABYTE },
        })
        .thenRefused('invalid', 'too long');
    }
    given([])
      .when({
        type: 'RegisterClient',
        clientId: 'c1',
        startDate: '2026-11-22',
        contact: { ...contact, dob: '0000-01-01' },
      })
      .thenRefused('invalid', 'Use a date between');
  });

  it('refuses a long tutor username or invoice prefix and a long login name', () => {
    const given = specFor(tutorDecider);
    const register = {
      type: 'RegisterTutor' as const,
      tutorId: 't1',
      startDate: '2026-01-05',
      username: 'ann.lee',
      invoicePrefix: 'AL',
      contact,
    };
    given([])
      .when({ ...register, username: 'a'.repeat(41) })
      .thenRefused('invalid', 'Username is too long');
    given([])
      .when({ ...register, invoicePrefix: 'A'.repeat(11) })
      .thenRefused('invalid', 'Invoice Prefix is too long');
    specFor(userDecider)([])
      .when({ type: 'RegisterUser', userId: 'u1', username: MEGABYTE, role: 'admin', tutorId: null, name: 'Ann' })
      .thenRefused('invalid', 'Username is too long');
  });
});

describe('a contact e-mail in the decider', () => {
  it('is one address: a list is refused on the email field', () => {
    const contact = {
      firstName: 'Ann',
      lastName: 'Lee',
      address: ['1 Road'],
      postcode: 'OX1 1AA',
      email: 'ann@example.com',
      phone: [{ type: 'Home', number: '0100' }],
      dob: null,
    };
    expect(() => checkContact(contact)).not.toThrow();
    for (const email of ['ann@example.com, bob@example.com', 'ann@example.com;bob@example.com', 'Ann <ann@x.com>']) {
      expect(() => checkContact({ ...contact, email }), email).toThrow(/one email address/);
    }
  });
});
