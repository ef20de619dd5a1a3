import { describe, expect, it } from 'vitest';
import { daysLeftInWords } from './early-invoice';

describe('the days an early invoice locks', () => {
  it('are the days after today to the end of its month, or the rest of the last day', () => {
    expect(daysLeftInWords('2026-11-26')).toBe('27–30 November 2026');
    expect(daysLeftInWords('2028-02-27')).toBe('28–29 February 2028');
    expect(daysLeftInWords('2026-12-31')).toBe('the rest of 31 December 2026');
  });
});
