import { describe, expect, it } from 'vitest';
import { maySee, redactForRole } from './visibility';

describe('what a family may see of an answer (docs/family-access.md)', () => {
  it('never sees commission, partner shares, the tutor’s pay or rates', () => {
    const lesson = {
      date: '2025-03-12',
      child: 'Kid',
      tutor: 'Ada Lovelace',
      duration: 1,
      rate: 30,
      ratePence: 3000,
      rateBp: 2500,
      commission: 7.5,
      commissionRate: 0.25,
      partnerCommission: 0.75,
      partnerRate: 0.1,
      tutorPay: 22.5,
      earnings: 22.5,
      pay: 1,
    };
    expect(redactForRole('family', { lessons: [lesson] })).toEqual({
      lessons: [{ date: '2025-03-12', child: 'Kid', tutor: 'Ada Lovelace', duration: 1 }],
    });
  });

  it('sees what it paid and owes, its payments and its own details', () => {
    for (const field of ['paid', 'paidPence', 'payments', 'owed', 'total', 'reference', 'email', 'generatedAt']) {
      expect(maySee('family', field), field).toBe(true);
    }
  });
});
