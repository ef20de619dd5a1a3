import { describe, expect, it } from 'vitest';
import { clientDecider } from '../client/client';
import { engagementDecider } from '../engagement/engagement';
import { invoiceDecider } from '../invoice/invoice';
import { timesheetDecider } from '../timesheet/timesheet';
import { tutorDecider } from '../tutor/tutor';
import { userDecider } from '../user/user';
import { type Decider, fold } from './decider';

/** An event a newer version of the product may write: no decider of this version knows it. */
const unknown = { type: 'SomethingNewHappened', data: { weird: true } } as never;

const first: Record<string, { type: string; data: object }> = {
  client: {
    type: 'ClientRegistered',
    data: {
      clientId: 'c1',
      startDate: '2026-01-05',
      contact: {
        id: 'k1',
        firstName: 'A',
        lastName: 'B',
        address: [],
        postcode: 'X',
        email: 'e',
        phone: [],
        dob: null,
      },
    },
  },
  engagement: {
    type: 'EngagementStarted',
    data: {
      engagementId: 'e1',
      tutorId: 't1',
      studentId: 's1',
      startDate: '2026-01-05',
      subjects: [],
      ratePence: 4000,
      commissionBp: 2500,
      partnerBp: 1000,
    },
  },
  invoice: {
    type: 'InvoicePaymentRecorded',
    data: { invoiceId: 'i1', tutorId: 't1', month: '2026-03', paymentId: 'p', date: '2026-04-01', amountPence: 1 },
  },
  timesheet: { type: 'TimesheetMonthLocked', data: { tutorId: 't1', month: '2026-03', invoiceId: 'i1' } },
  tutor: {
    type: 'TutorTerminated',
    data: { tutorId: 't1', endDate: '2026-03-01' },
  },
  user: { type: 'UserRegistered', data: { userId: 'u1', username: 'ann', role: 'admin', tutorId: null, name: 'Ann' } },
};

const deciders: Record<string, Pick<Decider<unknown, never, unknown>, 'initialState' | 'evolve'>> = {
  client: clientDecider as never,
  engagement: engagementDecider as never,
  invoice: invoiceDecider as never,
  timesheet: timesheetDecider as never,
  tutor: tutorDecider as never,
  user: userDecider as never,
};

describe('folds ignore event types they do not know', () => {
  for (const [name, decider] of Object.entries(deciders)) {
    it(`${name}: an unknown event leaves the state as it was, from the start and after a known event`, () => {
      expect(fold(decider, [unknown])).toEqual(decider.initialState());
      const known = fold(decider, [first[name] as never]);
      expect(fold(decider, [first[name] as never, unknown])).toEqual(known);
      // The very state it was given, not the event and not undefined.
      expect(decider.evolve(known, unknown)).toBe(known);
    });
  }
});
