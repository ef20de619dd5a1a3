import { LIMITS } from '@agency/contracts';
import { describe, expect, it } from 'vitest';
import { activityPeriodWithin } from './history';

describe('the activity period the page asks for', () => {
  it(`spans ${LIMITS.maxActivityDays} days at most: the end not chosen moves with the one that was`, () => {
    expect(activityPeriodWithin({ from: '2026-01-01', to: '2026-03-15' }, 'from')).toEqual({
      from: '2026-01-01',
      to: '2026-01-31',
    });
    expect(activityPeriodWithin({ from: '2026-01-01', to: '2026-03-15' }, 'to')).toEqual({
      from: '2026-02-13',
      to: '2026-03-15',
    });
    // Within the bound (the 31 days of January), nothing moves.
    expect(activityPeriodWithin({ from: '2026-01-01', to: '2026-01-31' }, 'from')).toEqual({
      from: '2026-01-01',
      to: '2026-01-31',
    });
  });

  it('ends on or after it starts', () => {
    expect(activityPeriodWithin({ from: '2026-05-10', to: '2026-05-01' }, 'from')).toEqual({
      from: '2026-05-10',
      to: '2026-05-10',
    });
    expect(activityPeriodWithin({ from: '2026-05-10', to: '2026-05-01' }, 'to')).toEqual({
      from: '2026-05-01',
      to: '2026-05-01',
    });
  });
});
