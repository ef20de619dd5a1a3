import type { EngagementEvent, TutorEvent } from '@agency/contracts';
import { describe, expect, it } from 'vitest';
import { fold } from '../shared/decider';
import { offRosterAtEnd } from './off-roster-at-end';
import { tutorDecider } from './tutor';

type Ended = Extract<EngagementEvent, { type: 'EngagementEnded' }>;

const registered: TutorEvent = {
  type: 'TutorRegistered',
  data: {
    tutorId: 't1',
    startDate: '2026-01-05',
    username: 'jobrien',
    invoicePrefix: 'JO',
    contact: {
      id: 'contact-1',
      firstName: 'Jane',
      lastName: "O'Brien",
      address: ['2 Mill Lane'],
      postcode: 'OX2 6AA',
      email: 'jane@example.com',
      phone: [],
      dob: null,
    },
  },
};
const onRoster: TutorEvent = {
  type: 'TutorEngagementStarted',
  data: { tutorId: 't1', engagementId: 'e1', studentId: 's1' },
};
const offRoster: TutorEvent = { type: 'TutorEngagementEnded', data: { tutorId: 't1', engagementId: 'e1' } };
const engagementEnded: Ended = { type: 'EngagementEnded', data: { engagementId: 'e1', endDate: '2026-06-30' } };

/** Given the tutor's events, when the engagement ends in its own stream, then this command (or none). */
const given = (events: TutorEvent[]) => ({
  when: (event: Ended) => ({
    thenCommand: (expected: ReturnType<typeof offRosterAtEnd>) =>
      expect(offRosterAtEnd(event, fold(tutorDecider, events))).toEqual(expected),
  }),
});

describe("an engagement that ended in its own stream comes off its tutor's roster", () => {
  it('takes it off while it is on the roster', () => {
    given([registered, onRoster]).when(engagementEnded).thenCommand({ type: 'EndTutorEngagement', engagementId: 'e1' });
  });

  it('does nothing once it is off (a re-run, or the roster settled first), nor when it never was on', () => {
    given([registered, onRoster, offRoster]).when(engagementEnded).thenCommand(undefined);
    given([registered]).when(engagementEnded).thenCommand(undefined);
    given([]).when(engagementEnded).thenCommand(undefined);
  });
});
