import { describe, expect, it } from 'vitest';
import { commissionNote } from './commission-note';

describe("an invoice item's commission, explained", () => {
  it('says the rate is taken on each lesson and rounded per lesson, and the difference from one sum when there is one', () => {
    // A lesson of £14.50 at 25 % is £3.625 of commission, £3.63 once rounded: such lessons add up to a penny more.
    expect(commissionNote({ commissionBp: 2500, earningsPence: 43_500, commissionPence: 10_876 })).toBe(
      '25% commission on each lesson, rounded to the penny per lesson: £108.76 (25% of £435.00 in one sum would be £108.75: the £0.01 between them is the rounding of each lesson).',
    );
  });

  it('is one sentence when the lessons add up to the rate of the total', () => {
    expect(commissionNote({ commissionBp: 1250, earningsPence: 4_000, commissionPence: 500 })).toBe(
      '12.5% commission on each lesson, rounded to the penny per lesson: £5.00.',
    );
  });
});
