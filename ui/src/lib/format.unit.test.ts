import { describe, expect, it } from 'vitest';
import { formatMoney } from './format';
import { formatCount } from './numbers';

// The amounts and counts the screens show, written out without Intl (its first use loads the
// locale's data, a long task on a slow phone): the same text as en-GB's Intl.NumberFormat gave.
const intlMoney = new Intl.NumberFormat('en-GB', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const intlCount = new Intl.NumberFormat('en-GB');

/** Whole amounts, pence, half pennies and the binary fractions that round either way. */
const amounts = [
  0,
  0.004,
  0.005,
  0.015,
  0.125,
  0.375,
  1,
  1.005,
  1.5,
  2.675,
  9.995,
  10,
  99.99,
  100,
  999.995,
  1000,
  1234.5,
  12345.678,
  123456.785,
  1234567.891,
  987654321.12,
  1e12 + 0.25,
];

describe('formatMoney', () => {
  it('writes every amount as en-GB Intl does, two decimals and grouped thousands', () => {
    for (const amount of [...amounts, ...amounts.map((a) => -a)]) {
      expect(formatMoney(amount), String(amount)).toBe(intlMoney.format(amount).replace(/^-0\.00$/, '0.00'));
    }
    // Many amounts of pence, as lesson rates and totals are.
    for (let pence = -100_000; pence <= 2_000_000; pence += 37) {
      const amount = pence / 100;
      expect(formatMoney(amount)).toBe(intlMoney.format(amount).replace(/^-0\.00$/, '0.00'));
    }
  });

  it('writes nothing as 0.00 and a negative amount that rounds to nothing without a sign', () => {
    expect(formatMoney(undefined)).toBe('0.00');
    expect(formatMoney(null)).toBe('0.00');
    expect(formatMoney(-0.001)).toBe('0.00');
    expect(formatMoney(-1234.5)).toBe('-1,234.50');
  });
});

describe('formatCount', () => {
  it('groups thousands as en-GB Intl does', () => {
    for (const value of [0, 1, 12, 123, 1234, 12345, 123456, 1234567, 100000000, -1, -1000, -1234567]) {
      expect(formatCount(value)).toBe(intlCount.format(value));
    }
  });
});
