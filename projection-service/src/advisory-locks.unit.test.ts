import { describe, expect, it } from 'vitest';
import { ADVISORY_LOCKS } from './advisory-locks';

describe('advisory locks', () => {
  it('no two share a key (nor the event store DDL lock, 7412001)', () => {
    const keys = [7412001, ...Object.values(ADVISORY_LOCKS)];
    expect(new Set(keys).size).toBe(keys.length);
  });
});
