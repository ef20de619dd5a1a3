import { describe, expect, it } from 'vitest';
import { datesInMonth, monthBounds, weekInMonth } from './week';

describe('the timesheet week', () => {
  it('shows one Monday-to-Sunday week, never crossing the month', () => {
    expect(monthBounds('2024-02')).toEqual({ first: '2024-02-01', last: '2024-02-29' });
    // 1 March 2026 is a Sunday: the first week of March is that one day.
    expect(weekInMonth('2026-03-01', '2026-03')).toEqual({ from: '2026-03-01', to: '2026-03-01' });
    expect(weekInMonth('2026-03-04', '2026-03')).toEqual({ from: '2026-03-02', to: '2026-03-08' });
    expect(weekInMonth('2026-03-31', '2026-03')).toEqual({ from: '2026-03-30', to: '2026-03-31' });
    expect(datesInMonth('2026-02-23', '2026-03-03', '2026-03')).toEqual(['2026-03-01', '2026-03-02', '2026-03-03']);
  });
});
