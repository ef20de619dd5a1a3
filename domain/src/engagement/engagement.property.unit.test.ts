import type { EngagementEvent } from '@agency/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../shared/decider';
import {
  type EngagementCommand,
  type EngagementState,
  engagementDecider,
  periodInForce,
  periodsOf,
  summaryOf,
} from './engagement';

const now = new Date('2026-11-22T10:00:00Z');
const START = '2026-01-05';

const addDays = (date: string, days: number) => {
  const day = new Date(`${date}T00:00:00Z`);
  day.setUTCDate(day.getUTCDate() + days);
  return day.toISOString().slice(0, 10);
};

const terms = fc.record({
  ratePence: fc.integer({ min: 0, max: 20_000 }),
  commissionBp: fc.integer({ min: 0, max: 10_000 }),
  partnerBp: fc.integer({ min: 0, max: 10_000 }),
});
const subjects = fc.subarray(['Maths', 'Physics', 'Latin', 'French', '11+']);
// A few fixed days make changes that share a date (and so amend one period) common.
const day = fc.oneof(fc.integer({ min: -20, max: 500 }), fc.constantFrom(0, 30, 60));

const change: fc.Arbitrary<EngagementCommand> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.tuple(day, terms).map(([d, t]) => ({ type: 'ChangeRates' as const, from: addDays(START, d), ...t })),
  },
  {
    weight: 5,
    arbitrary: fc
      .tuple(day, subjects)
      .map(([d, s]) => ({ type: 'ChangeSubjects' as const, from: addDays(START, d), subjects: s })),
  },
  { weight: 1, arbitrary: day.map((d) => ({ type: 'TerminateEngagement' as const, endDate: addDays(START, d) })) },
);

/** Runs commands the way the service does; refused ones leave no trace. */
function run(commands: EngagementCommand[]) {
  let state: EngagementState = engagementDecider.initialState();
  const accepted: EngagementEvent[] = [];
  for (const command of commands) {
    let events: EngagementEvent[];
    try {
      events = engagementDecider.decide(command, state, now);
    } catch (error) {
      if (error instanceof DomainError) continue;
      throw error;
    }
    accepted.push(...events);
    state = events.reduce(engagementDecider.evolve, state);
  }
  return { state, accepted };
}

const startCommand = (t: { ratePence: number; commissionBp: number; partnerBp: number }, s: string[]) =>
  ({
    type: 'StartEngagement',
    engagementId: 'e1',
    tutorId: 't1',
    studentId: 's1',
    startDate: START,
    subjects: s,
    otherOngoingWithSameStudent: false,
    ...t,
  }) satisfies EngagementCommand;

function expectTiling(state: EngagementState) {
  const summary = summaryOf(state)!;
  const periods = periodsOf(state);
  expect(periods[0].startDate).toBe(summary.startDate);
  periods.forEach((period, index) => {
    const next = periods[index + 1];
    if (period.endDate !== null) expect(period.startDate <= period.endDate).toBe(true);
    if (next) {
      expect(period.endDate).not.toBeNull();
      expect(addDays(period.endDate!, 1)).toBe(next.startDate);
    } else {
      expect(period.endDate).toBe(summary.endDate);
    }
  });
}

describe('engagement periods', () => {
  it('any sequence of accepted rate and subject changes tiles the life with no overlap or gap', () => {
    fc.assert(
      fc.property(terms, subjects, fc.array(change, { maxLength: 30 }), (t, s, changes) => {
        const { state } = run([startCommand(t, s), ...changes]);
        expectTiling(state);
      }),
    );
  });

  it('the rate and subjects in force on any date are those of the last change on or before it', () => {
    fc.assert(
      fc.property(terms, subjects, fc.array(change, { maxLength: 30 }), day, (t, s, changes, probeDay) => {
        const { state, accepted } = run([startCommand(t, s), ...changes]);
        const probe = addDays(START, probeDay);
        const inForce = periodInForce(periodsOf(state), probe);
        const end = state.status === 'ended' ? state.endDate : null;
        if (probe < START || (end !== null && probe > end)) {
          expect(inForce).toBeUndefined();
          return;
        }
        let rate: number | undefined;
        let subjectsInForce: string[] | undefined;
        for (const event of accepted) {
          if (event.type === 'EngagementStarted') {
            rate = event.data.ratePence;
            subjectsInForce = event.data.subjects;
          }
          if (event.type === 'EngagementRatesChanged' && event.data.from <= probe) rate = event.data.ratePence;
          if (event.type === 'EngagementSubjectsChanged' && event.data.from <= probe) {
            subjectsInForce = event.data.subjects;
          }
        }
        expect(inForce?.ratePence).toBe(rate);
        expect(inForce?.subjects).toEqual(subjectsInForce);
      }),
    );
  });

  it('corrections that move period starts keep the tiling too', () => {
    const correction = fc
      .tuple(fc.nat(), day, terms, subjects)
      .map(([pick, d, t, s]) => ({ pick, startDate: addDays(START, d), t, s }));
    fc.assert(
      fc.property(fc.array(change, { maxLength: 20 }), fc.array(correction, { maxLength: 10 }), (changes, fixes) => {
        let { state } = run([startCommand({ ratePence: 4000, commissionBp: 2500, partnerBp: 0 }, []), ...changes]);
        for (const fix of fixes) {
          const periods = periodsOf(state);
          const period = periods[fix.pick % periods.length];
          try {
            const events = engagementDecider.decide(
              {
                type: 'CorrectPeriod',
                periodStart: period.startDate,
                startDate: fix.startDate,
                subjects: fix.s,
                ...fix.t,
              },
              state,
              now,
            );
            state = events.reduce(engagementDecider.evolve, state);
          } catch (error) {
            if (!(error instanceof DomainError)) throw error;
          }
        }
        expectTiling(state);
      }),
    );
  });
});
