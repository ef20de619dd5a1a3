import { describe, expect, it } from 'vitest';
import { todayIn } from './calendar';

describe('todayIn', () => {
  it('uses the agency time zone, not UTC, at the edges of a day', () => {
    // 23:30 UTC on 30 June is already 1 July in London (BST).
    expect(todayIn('Europe/London', new Date('2026-06-30T23:30:00Z'))).toBe('2026-07-01');
    // In winter London is on UTC.
    expect(todayIn('Europe/London', new Date('2026-12-31T23:30:00Z'))).toBe('2026-12-31');
  });
});
