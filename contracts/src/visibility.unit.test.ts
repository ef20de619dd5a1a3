import { describe, expect, it } from 'vitest';
import { maySee, redactForRole } from './visibility';

const answer = {
  lessons: [{ id: 'l1', amount: 30, commission: 6, partnerCommission: 0.6 }],
  totals: { amount: 30, partnerCommission: 0.6 },
  engagement: { partnerRate: 0.1, partnerPct: 10, history: [{ rate: 30, partnerRate: 0.1 }] },
  lesson: { partnerBp: 1000, partnerCommissionPence: 60, PartnerShare: 1, date: new Date('2024-01-09T00:00:00Z') },
};

describe('redactForRole: which fields a role may see', () => {
  it('shows admins every field, the answer itself, and partners every field but health data and birth dates', () => {
    expect(redactForRole('admin', answer)).toBe(answer);
    expect(redactForRole('partner', answer)).toEqual(JSON.parse(JSON.stringify(answer)));
    expect(maySee('partner', 'partnerCommission')).toBe(true);
  });

  it('shows allergies and dates of birth to admins and auditors only', () => {
    const child = { firstName: 'Ann', allergies: 'Nuts', dob: '2015-01-02', school: 'St Mary' };
    for (const role of ['partner', 'tutor'] as const) {
      expect(redactForRole(role, { children: [child] })).toEqual({
        children: [{ firstName: 'Ann', school: 'St Mary' }],
      });
    }
    expect(redactForRole('admin', { children: [child] })).toEqual({ children: [child] });
    expect(redactForRole('auditor', { children: [child] })).toEqual({ children: [child] });
  });

  it('shows a tutor no partner field at any depth, in any spelling, and leaves the answer untouched', () => {
    const before = JSON.stringify(answer);
    expect(redactForRole('tutor', answer)).toEqual({
      lessons: [{ id: 'l1', amount: 30, commission: 6 }],
      totals: { amount: 30 },
      engagement: { history: [{ rate: 30 }] },
      lesson: { date: '2024-01-09T00:00:00.000Z' },
    });
    expect(JSON.stringify(answer)).toBe(before);
    expect(maySee('tutor', 'partnerRate')).toBe(false);
    expect(maySee('tutor', 'commission')).toBe(true);
  });

  it('treats someone without a role as the most restricted', () => {
    expect(redactForRole(undefined, { totals: { partnerCommission: 1, amount: 2 } })).toEqual({
      totals: { amount: 2 },
    });
  });

  it('passes values that are not objects as they are', () => {
    expect(redactForRole('tutor', 'text')).toBe('text');
    expect(redactForRole('tutor', null)).toBe(null);
    expect(redactForRole('tutor', [1, 'two'])).toEqual([1, 'two']);
  });
});
