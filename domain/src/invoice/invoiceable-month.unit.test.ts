import { describe, expect, it } from 'vitest';
import { DomainError } from '../shared/decider';
import { checkMonthInvoiceable, type EngagementSpan } from './invoice';

const TODAY = '2026-05-14';
const refusal = (month: string, spans: EngagementSpan[], { today = TODAY, early = false } = {}) => {
  try {
    checkMonthInvoiceable(month, today, spans, early);
    return undefined;
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return { code: error.code, message: error.message, fields: error.fields };
  }
};

describe('which months can be invoiced', () => {
  const ongoingSinceFeb = { startDate: '2026-02-10', endDate: null };
  const spring2025 = { startDate: '2025-03-31', endDate: '2025-05-01' };

  it('a month an engagement overlaps, once it has ended', () => {
    for (const month of ['2026-02', '2026-03', '2026-04'])
      expect(refusal(month, [ongoingSinceFeb]), month).toBeUndefined();
    // Overlapping by one day at either end is enough.
    for (const month of ['2025-03', '2025-04', '2025-05']) expect(refusal(month, [spring2025]), month).toBeUndefined();
  });

  it('not a month before, between or after the engagements', () => {
    for (const month of ['2011-01', '2025-02', '2025-06', '2026-01']) {
      expect(refusal(month, [spring2025, ongoingSinceFeb]), month).toEqual({
        code: 'conflict',
        message: expect.stringMatching(/had no engagement in .* so there is no invoice to generate/),
        fields: { month: 'No engagement this month' },
      });
    }
    expect(refusal('2026-05', [])?.code).toBe('conflict');
  });

  it('the current month only early, when the user confirmed that it locks the rest of the month', () => {
    expect(refusal('2026-05', [ongoingSinceFeb])).toEqual({
      code: 'conflict',
      message:
        'May 2026 has not ended yet: invoicing it now locks its lessons up to the end of the month (15–31 May 2026), so none can be added for those days. Invoice it early only if that is meant.',
      fields: { month: 'Not ended yet' },
    });
    expect(refusal('2026-05', [ongoingSinceFeb], { early: true })).toBeUndefined();
    // On its last day, the rest of that day; and the month ends at midnight in the agency's time zone.
    expect(refusal('2026-05', [ongoingSinceFeb], { today: '2026-05-31' })?.message).toMatch(
      /up to the end of the month \(the rest of 31 May 2026\)/,
    );
    expect(refusal('2026-05', [ongoingSinceFeb], { today: '2026-06-01' })).toBeUndefined();
    // Early does not reach into a month that has not started, nor one without an engagement.
    expect(refusal('2026-06', [ongoingSinceFeb], { early: true })?.code).toBe('invalid');
    expect(refusal('2026-05', [spring2025], { early: true })?.code).toBe('conflict');
  });

  it('never a month that has not started, engagement or not', () => {
    for (const month of ['2026-06', '2027-01', '2100-12']) {
      expect(refusal(month, [ongoingSinceFeb]), month).toEqual({
        code: 'invalid',
        message: expect.stringMatching(/has not started yet/),
        fields: { month: 'Not started yet' },
      });
    }
  });
});
