import type { EngagementEvent } from '@agency/contracts';
import { describe, expect, it } from 'vitest';
import { fold } from '../shared/decider';
import { specFor } from '../testing/given-when-then';
import { checkChangeOf, engagementDecider, historyOf, periodInForce, periodsOf, summaryOf } from './engagement';

const given = specFor(engagementDecider);
const terms = { ratePence: 4000, commissionBp: 2500, partnerBp: 1000 };
const start = {
  type: 'StartEngagement' as const,
  engagementId: 'e1',
  tutorId: 't1',
  studentId: 's1',
  startDate: '2026-01-05',
  subjects: ['Maths'],
  otherOngoingWithSameStudent: false,
  ...terms,
};
const started: EngagementEvent = {
  type: 'EngagementStarted',
  data: {
    engagementId: 'e1',
    tutorId: 't1',
    studentId: 's1',
    startDate: '2026-01-05',
    subjects: ['Maths'],
    ...terms,
  },
};
const ratesChanged: EngagementEvent = {
  type: 'EngagementRatesChanged',
  data: { engagementId: 'e1', from: '2026-03-01', ratePence: 4500, commissionBp: 2500, partnerBp: 1000 },
};
const ended: EngagementEvent = { type: 'EngagementEnded', data: { engagementId: 'e1', endDate: '2026-06-30' } };

describe('starting an engagement', () => {
  it('records the student, rate, commission, partner share, subjects and start date', () => {
    given([]).when(start).thenEvents([started]);
  });

  it('refuses a second ongoing engagement of the tutor with the same student', () => {
    given([])
      .when({ ...start, otherOngoingWithSameStudent: true })
      .thenRefused('conflict', 'already has an ongoing engagement with this student');
  });

  it('refuses to start the same engagement twice', () => {
    given([started]).when(start).thenRefused('conflict', 'already exists');
  });

  it('refuses a negative or non-numeric rate', () => {
    given([])
      .when({ ...start, ratePence: -1 })
      .thenRefused('invalid', 'rate cannot be negative');
    given([])
      .when({ ...start, ratePence: Number.NaN })
      .thenRefused('invalid', 'rate must be an amount');
  });

  it('refuses percentages outside 0–100; 0 and 100 are allowed', () => {
    given([])
      .when({ ...start, commissionBp: 10_001 })
      .thenRefused('invalid', 'Commission % must be between 0 and 100');
    given([])
      .when({ ...start, partnerBp: -1 })
      .thenRefused('invalid', 'Partner % must be between 0 and 100');
    given([])
      .when({ ...start, commissionBp: 0, partnerBp: 10_000 })
      .thenEvents([{ type: 'EngagementStarted', data: { ...started.data, commissionBp: 0, partnerBp: 10_000 } }]);
  });
});

describe('changing rates and subjects from a date', () => {
  it('closes the period in force the day before and opens a new one', () => {
    given([started])
      .when({ type: 'ChangeRates', from: '2026-03-01', ratePence: 4500, commissionBp: 2500, partnerBp: 1000 })
      .thenEvents([ratesChanged]);
    const periods = periodsOf(fold(engagementDecider, [started, ratesChanged]));
    expect(periods.map((p) => [p.startDate, p.endDate, p.ratePence])).toEqual([
      ['2026-01-05', '2026-02-28', 4000],
      ['2026-03-01', null, 4500],
    ]);
  });

  it('a change of subjects keeps the rates, a change of rates keeps the subjects', () => {
    const subjectsChanged: EngagementEvent = {
      type: 'EngagementSubjectsChanged',
      data: { engagementId: 'e1', from: '2026-04-01', subjects: ['Maths', 'Physics'] },
    };
    given([started, ratesChanged])
      .when({ type: 'ChangeSubjects', from: '2026-04-01', subjects: ['Maths', 'Physics'] })
      .thenEvents([subjectsChanged]);
    const periods = periodsOf(fold(engagementDecider, [started, ratesChanged, subjectsChanged]));
    expect(periods.map((p) => [p.startDate, p.endDate, p.ratePence, p.subjects])).toEqual([
      ['2026-01-05', '2026-02-28', 4000, ['Maths']],
      ['2026-03-01', '2026-03-31', 4500, ['Maths']],
      ['2026-04-01', null, 4500, ['Maths', 'Physics']],
    ]);
  });

  it('a change dated on the day the latest period starts amends that period instead of adding an empty one', () => {
    const sameDay: EngagementEvent = {
      type: 'EngagementRatesChanged',
      data: { ...ratesChanged.data, ratePence: 4800 },
    };
    given([started, ratesChanged])
      .when({ type: 'ChangeRates', from: '2026-03-01', ratePence: 4800, commissionBp: 2500, partnerBp: 1000 })
      .thenEvents([sameDay]);
    const periods = periodsOf(fold(engagementDecider, [started, ratesChanged, sameDay]));
    expect(periods.map((p) => [p.startDate, p.ratePence])).toEqual([
      ['2026-01-05', 4000],
      ['2026-03-01', 4800],
    ]);
  });

  it('a change of subjects on the day new rates began keeps those rates', () => {
    const subjectsChanged: EngagementEvent = {
      type: 'EngagementSubjectsChanged',
      data: { engagementId: 'e1', from: '2026-03-01', subjects: ['Physics'] },
    };
    given([started, ratesChanged])
      .when({ type: 'ChangeSubjects', from: '2026-03-01', subjects: ['Physics'] })
      .thenEvents([subjectsChanged]);
    const periods = periodsOf(fold(engagementDecider, [started, ratesChanged, subjectsChanged]));
    expect(periods.map((p) => [p.startDate, p.endDate, p.ratePence, p.subjects])).toEqual([
      ['2026-01-05', '2026-02-28', 4000, ['Maths']],
      ['2026-03-01', null, 4500, ['Physics']],
    ]);
  });

  it('records nothing when nothing changes', () => {
    given([started])
      .when({ type: 'ChangeRates', from: '2026-03-01', ...terms })
      .thenEvents([]);
    given([started])
      .when({ type: 'ChangeSubjects', from: '2026-03-01', subjects: ['Maths'] })
      .thenEvents([]);
  });

  it('refuses a change dated before the engagement started', () => {
    given([started])
      .when({ type: 'ChangeRates', from: '2026-01-04', ...terms, ratePence: 1 })
      .thenRefused('invalid', 'before the engagement started on 2026-01-05');
    given([started])
      .when({ type: 'ChangeSubjects', from: '2025-12-31', subjects: [] })
      .thenRefused('invalid', 'before the engagement started');
  });

  it('refuses a change dated inside an earlier period: that is a correction', () => {
    given([started, ratesChanged])
      .when({ type: 'ChangeSubjects', from: '2026-02-01', subjects: ['Latin'] })
      .thenRefused('invalid', 'on or after 2026-03-01');
  });

  it('refuses bad rates on a change', () => {
    given([started])
      .when({ type: 'ChangeRates', from: '2026-03-01', ...terms, commissionBp: 12_000 })
      .thenRefused('invalid', 'Commission %');
  });

  it('refuses any change to a terminated engagement, including a second termination', () => {
    given([started, ended])
      .when({ type: 'ChangeRates', from: '2026-03-01', ...terms, ratePence: 5000 })
      .thenRefused('conflict', 'ended on 2026-06-30');
    given([started, ended])
      .when({ type: 'ChangeSubjects', from: '2026-03-01', subjects: ['Latin'] })
      .thenRefused('conflict', 'can no longer be changed');
    given([started, ended]).when({ type: 'TerminateEngagement', endDate: '2026-07-01' }).thenRefused('conflict');
  });

  it('refuses changes to an engagement that does not exist', () => {
    given([]).when({ type: 'TerminateEngagement', endDate: '2026-07-01' }).thenRefused('not_found');
    given([]).when({ type: 'ChangeSubjects', from: '2026-03-01', subjects: [] }).thenRefused('not_found');
  });
});

describe('correcting a past period', () => {
  const correct = {
    type: 'CorrectPeriod' as const,
    periodStart: '2026-01-05',
    startDate: '2026-01-05',
    ratePence: 3800,
    commissionBp: 2000,
    partnerBp: 0,
    subjects: ['Maths', 'Latin'],
  };

  it('changes the values of that period only', () => {
    const { type: _type, ...data } = correct;
    const corrected: EngagementEvent = { type: 'EngagementPeriodCorrected', data: { engagementId: 'e1', ...data } };
    given([started, ratesChanged]).when(correct).thenEvents([corrected]);
    const periods = periodsOf(fold(engagementDecider, [started, ratesChanged, corrected]));
    expect(periods.map((p) => [p.startDate, p.endDate, p.ratePence, p.subjects])).toEqual([
      ['2026-01-05', '2026-02-28', 3800, ['Maths', 'Latin']],
      ['2026-03-01', null, 4500, ['Maths']],
    ]);
  });

  it('may move the boundary with the period before, keeping the tiling', () => {
    const moved: EngagementEvent = {
      type: 'EngagementPeriodCorrected',
      data: { engagementId: 'e1', periodStart: '2026-03-01', startDate: '2026-02-15', subjects: ['Maths'], ...terms },
    };
    given([started, ratesChanged])
      .when({ ...correct, periodStart: '2026-03-01', startDate: '2026-02-15', subjects: ['Maths'], ...terms })
      .thenEvents([moved]);
    const periods = periodsOf(fold(engagementDecider, [started, ratesChanged, moved]));
    expect(periods.map((p) => [p.startDate, p.endDate])).toEqual([
      ['2026-01-05', '2026-02-14'],
      ['2026-02-15', null],
    ]);
  });

  it('refuses to move a period onto or before the one before it, or past its own end', () => {
    given([started, ratesChanged])
      .when({ ...correct, periodStart: '2026-03-01', startDate: '2026-01-05' })
      .thenRefused('invalid', 'after the period before it');
    given([started, ratesChanged])
      .when({ ...correct, startDate: '2026-03-01' })
      .thenRefused('invalid', 'on or before its end, 2026-02-28');
  });

  it('stays possible after the engagement ended, but not past the end', () => {
    given([started, ended])
      .when({ ...correct, startDate: '2026-07-01' })
      .thenRefused('invalid', 'after the engagement ended on 2026-06-30');
    const { type: _type, ...data } = correct;
    given([started, ended])
      .when(correct)
      .thenEvents([{ type: 'EngagementPeriodCorrected', data: { engagementId: 'e1', ...data } }]);
  });

  it('refuses an unknown period and records nothing for an unchanged one', () => {
    given([started])
      .when({ ...correct, periodStart: '2026-02-01' })
      .thenRefused('not_found', 'no period starting on 2026-02-01');
    given([started])
      .when({ ...correct, ...terms, subjects: ['Maths'] })
      .thenEvents([]);
  });
});

describe('terminating', () => {
  it('ends the engagement; the last period ends with it', () => {
    given([started, ratesChanged]).when({ type: 'TerminateEngagement', endDate: '2026-06-30' }).thenEvents([ended]);
    const state = fold(engagementDecider, [started, ratesChanged, ended]);
    expect(state.status).toBe('ended');
    expect(periodsOf(state).at(-1)?.endDate).toBe('2026-06-30');
  });

  it('refuses an end before the start or before the latest terms began', () => {
    given([started])
      .when({ type: 'TerminateEngagement', endDate: '2026-01-04' })
      .thenRefused('invalid', 'before it started on 2026-01-05');
    given([started, ratesChanged])
      .when({ type: 'TerminateEngagement', endDate: '2026-02-27' })
      .thenRefused('invalid', 'latest terms began on 2026-03-01');
  });

  it('allows an engagement of one day', () => {
    given([started])
      .when({ type: 'TerminateEngagement', endDate: '2026-01-05' })
      .thenEvents([{ type: 'EngagementEnded', data: { engagementId: 'e1', endDate: '2026-01-05' } }]);
  });
});

describe('reading periods', () => {
  const state = fold(engagementDecider, [started, ratesChanged, ended]);

  it('finds the period in force on a date, and none outside the life', () => {
    const periods = periodsOf(state);
    expect(periodInForce(periods, '2026-01-04')).toBeUndefined();
    expect(periodInForce(periods, '2026-01-05')?.ratePence).toBe(4000);
    expect(periodInForce(periods, '2026-02-28')?.ratePence).toBe(4000);
    expect(periodInForce(periods, '2026-03-01')?.ratePence).toBe(4500);
    expect(periodInForce(periods, '2026-06-30')?.ratePence).toBe(4500);
    expect(periodInForce(periods, '2026-07-01')).toBeUndefined();
  });

  it('gives the history rows of spec §3 in the API units, newest first', () => {
    expect(historyOf(state)).toEqual([
      {
        rate: 45,
        commissionRate: 0.25,
        partnerRate: 0.1,
        subjects: ['Maths'],
        startDate: '2026-03-01',
        endDate: '2026-06-30',
        latest: true,
      },
      {
        rate: 40,
        commissionRate: 0.25,
        partnerRate: 0.1,
        subjects: ['Maths'],
        startDate: '2026-01-05',
        endDate: '2026-02-28',
        latest: false,
      },
    ]);
  });

  it('summarises what lessons need', () => {
    expect(summaryOf(state)).toMatchObject({
      engagementId: 'e1',
      tutorId: 't1',
      studentId: 's1',
      startDate: '2026-01-05',
      endDate: '2026-06-30',
    });
    expect(summaryOf(fold(engagementDecider, []))).toBeUndefined();
  });
});

describe('a change names its engagement', () => {
  it("is for the engagement's own tutor: another tutor's, or none, is not found", () => {
    const state = fold(engagementDecider, [started]);
    expect(() => checkChangeOf(state, { tutorId: 't1' })).not.toThrow();
    expect(() => checkChangeOf(state, { tutorId: 't1', studentId: 's1' })).not.toThrow();
    expect(() => checkChangeOf(state, { tutorId: 't2' })).toThrow(
      expect.objectContaining({ code: 'not_found', message: 'There is no such engagement for this tutor.' }),
    );
    expect(() => checkChangeOf(fold(engagementDecider, []), { tutorId: 't1' })).toThrow(
      expect.objectContaining({ code: 'not_found' }),
    );
  });

  it('never changes the student: a different student is a new engagement', () => {
    expect(() => checkChangeOf(fold(engagementDecider, [started]), { tutorId: 't1', studentId: 's2' })).toThrow(
      expect.objectContaining({
        code: 'conflict',
        message: expect.stringMatching(/cannot be changed/),
        fields: { studentId: 'The student cannot be changed' },
      }),
    );
  });
});
