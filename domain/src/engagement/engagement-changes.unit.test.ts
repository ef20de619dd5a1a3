import type { EngagementEvent } from '@agency/contracts';
import { describe, expect, it } from 'vitest';
import { fold } from '../shared/decider';
import { changesFrom, dayBefore, engagementDecider } from './engagement';

const terms = { ratePence: 4000, commissionBp: 2500, partnerBp: 1000 };
const started: EngagementEvent = {
  type: 'EngagementStarted',
  data: { engagementId: 'e1', tutorId: 't1', studentId: 's1', startDate: '2026-01-05', subjects: ['Maths'], ...terms },
};
/** £45 from 1 March; ended 30 June. */
const ratesChanged: EngagementEvent = {
  type: 'EngagementRatesChanged',
  data: { engagementId: 'e1', from: '2026-03-01', ratePence: 4500, commissionBp: 2500, partnerBp: 1000 },
};
const ended: EngagementEvent = { type: 'EngagementEnded', data: { engagementId: 'e1', endDate: '2026-06-30' } };
const state = fold(engagementDecider, [started, ratesChanged, ended]);

describe('what an edit of an engagement changes', () => {
  it('compares the terms and subjects with the period in force on the date the edit takes effect', () => {
    expect(changesFrom(state, { from: '2026-02-01', terms, subjects: ['Maths'] })).toEqual([]);
    expect(changesFrom(state, { from: '2026-04-01', terms, subjects: ['Maths'] })).toEqual(['rates']);
    expect(
      changesFrom(state, { from: '2026-04-01', terms: { ...terms, ratePence: 4500 }, subjects: ['Maths'] }),
    ).toEqual([]);
  });

  it('finds a change of rates and of subjects at once, and any change of commission or partner share', () => {
    expect(
      changesFrom(state, { from: '2026-02-01', terms: { ...terms, partnerBp: 0 }, subjects: ['Physics'] }),
    ).toEqual(['rates', 'subjects']);
    expect(
      changesFrom(state, { from: '2026-02-01', terms: { ...terms, commissionBp: 2000 }, subjects: ['Maths'] }),
    ).toEqual(['rates']);
    expect(changesFrom(state, { from: '2026-02-01', terms, subjects: ['Maths', 'Physics'] })).toEqual(['subjects']);
  });

  it('compares a date past the end with the last period', () => {
    expect(
      changesFrom(state, { from: '2026-08-01', terms: { ...terms, ratePence: 4500 }, subjects: ['Maths'] }),
    ).toEqual([]);
  });

  it('finds nothing to change in an engagement that never started', () => {
    expect(changesFrom(engagementDecider.initialState(), { from: '2026-02-01', terms, subjects: [] })).toEqual([]);
  });
});

describe('the day before a date', () => {
  it('is the calendar day before, for every day from 1999 to 2101 (month ends, leap years, 2000 and 2100)', () => {
    const day = new Date(Date.UTC(1999, 0, 1));
    let before = '1998-12-31';
    while (day.getUTCFullYear() < 2102) {
      const date = day.toISOString().slice(0, 10);
      expect(dayBefore(date)).toBe(before);
      before = date;
      day.setUTCDate(day.getUTCDate() + 1);
    }
  });
});
