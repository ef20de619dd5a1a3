import type { EngagementEvent, TutorEvent } from '@agency/contracts';
import { describe, expect, it } from 'vitest';
import { fold } from '../shared/decider';
import { specFor } from '../testing/given-when-then';
import { engagementDecider } from './engagement';
import { startFromRoster } from './start-from-roster';

type PutOnRoster = Extract<TutorEvent, { type: 'TutorEngagementStarted' }>;

const begins = { startDate: '2026-01-05', subjects: ['Maths'], ratePence: 4000, commissionBp: 2500, partnerBp: 1000 };
const putOnRoster: PutOnRoster = {
  type: 'TutorEngagementStarted',
  data: { tutorId: 't1', engagementId: 'e1', studentId: 's1', engagement: begins },
};
const started: EngagementEvent = {
  type: 'EngagementStarted',
  data: { engagementId: 'e1', tutorId: 't1', studentId: 's1', ...begins },
};

/** Given the engagement's own events, when its tutor's roster takes it on, then this command (or none). */
const given = (events: EngagementEvent[]) => ({
  when: (event: PutOnRoster) => ({
    thenCommand: (expected: ReturnType<typeof startFromRoster>) =>
      expect(startFromRoster(event, fold(engagementDecider, events))).toEqual(expected),
  }),
});

describe('an engagement put on the roster with what it starts with is recorded in its own stream', () => {
  it('starts it with the terms, start date, subjects and student the roster carries', () => {
    given([])
      .when(putOnRoster)
      .thenCommand({
        type: 'StartEngagement',
        engagementId: 'e1',
        tutorId: 't1',
        studentId: 's1',
        ...begins,
        otherOngoingWithSameStudent: false,
      });
  });

  it('and that start is one the engagement records: the roster decided the rules across engagements', () => {
    const command = startFromRoster(putOnRoster, engagementDecider.initialState());
    specFor(engagementDecider)([]).when(command!).thenEvents([started]);
  });

  it('does nothing once it is recorded (a re-run), nor for an entry that carries no start', () => {
    given([started]).when(putOnRoster).thenCommand(undefined);
    const { engagement: _carried, ...olderEntry } = putOnRoster.data;
    given([])
      .when({ ...putOnRoster, data: olderEntry })
      .thenCommand(undefined);
  });
});
