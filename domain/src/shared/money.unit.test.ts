import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DomainError } from './decider';
import {
  basisPointsToFraction,
  basisPointsToPercent,
  commissionOf,
  divideHalfUp,
  formatAmount,
  formatPercent,
  formatPounds,
  fractionToBasisPoints,
  lessonAmount,
  partnerCommissionOf,
  percentToBasisPoints,
  toHours,
  toHundredths,
  toPence,
  toPounds,
  toScaledInteger,
} from './money';

describe('pounds and pence', () => {
  it('reads pounds as numbers or form strings', () => {
    expect(toPence(12.5)).toBe(1250);
    expect(toPence('12.50')).toBe(1250);
    expect(toPence(' £1,234.56 ')).toBe(123456);
    expect(toPence('40')).toBe(4000);
    expect(toPence('.5')).toBe(50);
    expect(toPence(0)).toBe(0);
    expect(toPence('-3.2')).toBe(-320);
  });

  it('rounds a third decimal half-up, without floating-point surprises', () => {
    // 1.005 * 100 is 100.49999999999999 in floating point; decimal reading gives 101.
    expect(toPence(1.005)).toBe(101);
    expect(toPence('1.004')).toBe(100);
    expect(toPence(0.1 + 0.2)).toBe(30);
    expect(toPence('-1.005')).toBe(-101);
  });

  it('refuses what is not a number with a sentence', () => {
    for (const bad of ['', 'abc', '1.2.3', '12a', Number.NaN, Number.POSITIVE_INFINITY, '1e3']) {
      expect(() => toPence(bad, 'Rate')).toThrow(DomainError);
    }
    expect(() => toPence('ten', 'Rate')).toThrow('Rate must be a number, not "ten".');
    expect(toScaledInteger('99999999999999999', 2)).toBeUndefined();
  });

  it('turns pence back into pounds for answers', () => {
    expect(toPounds(123450)).toBe(1234.5);
    fc.assert(fc.property(fc.integer({ min: -1e9, max: 1e9 }), (pence) => toPence(toPounds(pence)) === pence));
  });
});

describe('rates and durations', () => {
  it('reads fractions and percentages as basis points, and back', () => {
    expect(fractionToBasisPoints(0.25)).toBe(2500);
    expect(fractionToBasisPoints('0.125')).toBe(1250);
    expect(percentToBasisPoints(25)).toBe(2500);
    expect(percentToBasisPoints('12.5')).toBe(1250);
    expect(basisPointsToFraction(2500)).toBe(0.25);
    expect(basisPointsToPercent(1250)).toBe(12.5);
  });

  it('reads decimal hours as hundredths of an hour, and back', () => {
    expect(toHundredths(1)).toBe(100);
    expect(toHundredths('1.5')).toBe(150);
    expect(toHundredths(0.33)).toBe(33);
    expect(toHours(75)).toBe(0.75);
  });
});

describe('lesson arithmetic', () => {
  it('divides integers rounding half away from zero', () => {
    expect(divideHalfUp(5, 10)).toBe(1);
    expect(divideHalfUp(4, 10)).toBe(0);
    expect(divideHalfUp(15, 10)).toBe(2);
    expect(divideHalfUp(-15, 10)).toBe(-2);
    expect(divideHalfUp(-4, 10)).toBe(0);
  });

  it('prices a lesson as duration × rate, half-up to the penny', () => {
    expect(lessonAmount(100, 4000)).toBe(4000);
    expect(lessonAmount(150, 3333)).toBe(5000); // 49.995 → 50.00
    expect(lessonAmount(33, 3000)).toBe(990);
    expect(lessonAmount(0, 4000)).toBe(0);
  });

  it('takes commission on the amount, and the partner share of the commission', () => {
    expect(commissionOf(4000, 2500)).toBe(1000);
    expect(commissionOf(4999, 2500)).toBe(1250); // 1249.75
    expect(commissionOf(2, 2500)).toBe(1); // 0.5 → 1
    expect(partnerCommissionOf(1250, 1000)).toBe(125);
    expect(partnerCommissionOf(1255, 1000)).toBe(126); // 125.5 → 126
  });

  it('never gives more commission than the amount, nor a partner more than the commission', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_200 }),
        fc.integer({ min: 0, max: 100_000 }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 0, max: 10_000 }),
        (duration, rate, commissionRate, partnerRate) => {
          const amount = lessonAmount(duration, rate);
          const commission = commissionOf(amount, commissionRate);
          const partner = partnerCommissionOf(commission, partnerRate);
          return (
            Number.isInteger(amount) &&
            Math.abs(amount * 100 - duration * rate) <= 50 &&
            commission >= 0 &&
            commission <= amount &&
            partner >= 0 &&
            partner <= commission
          );
        },
      ),
    );
  });
});

describe('formatting', () => {
  it('formats pence in the 0,0.00 style', () => {
    expect(formatAmount(123450)).toBe('1,234.50');
    expect(formatAmount(5)).toBe('0.05');
    expect(formatAmount(123456789)).toBe('1,234,567.89');
    expect(formatPounds(123450)).toBe('£1,234.50');
    expect(formatPounds(0)).toBe('£0.00');
    expect(formatPounds(-50)).toBe('-£0.50');
  });

  it('shows rates as percentages', () => {
    expect(formatPercent(2500)).toBe('25');
    expect(formatPercent(1250)).toBe('12.5');
    expect(formatPercent(0)).toBe('0');
  });
});
