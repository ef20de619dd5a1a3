import { createTestDatabase } from '@agency/scripts/testing/test-database';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateCommandSide } from '../schema';
import { ResetThrottle } from './reset-throttle';

const HOUR = 60 * 60 * 1000;

describe('the reset and booking throttle (real PostgreSQL)', () => {
  let pool: pg.Pool;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const database = await createTestDatabase();
    drop = database.drop;
    // One connection per caller of the bursts below, so all of them are in flight at once.
    pool = new pg.Pool({ connectionString: database.url, max: 16 });
    await migrateCommandSide(pool);
  });
  afterAll(async () => {
    await pool?.end();
    await drop?.();
  });

  const rows = async (key: string) =>
    Number((await pool.query('select count(*) from auth.reset_requests where key = $1', [key])).rows[0].count);

  it('admits exactly the per-account limit out of a parallel burst on one account', async () => {
    const throttle = new ResetThrottle(pool, 'booking', { perAccount: 5, perAddress: 100, windowMs: HOUR });
    const answers = await Promise.all(
      Array.from({ length: 15 }, (_, i) => throttle.admit(['booking:same-email'], `10.0.0.${i + 1}`)),
    );
    expect(answers.filter(Boolean)).toHaveLength(5);
    // A refused request counted nothing.
    expect(await rows('booking:booking:same-email')).toBe(5);
  });

  it('admits exactly the per-address limit out of a parallel burst from one address', async () => {
    const throttle = new ResetThrottle(pool, 'reset', { perAccount: 3, perAddress: 7, windowMs: HOUR });
    const answers = await Promise.all(
      Array.from({ length: 15 }, (_, i) => throttle.admit([`name:someone-${i}`], '10.9.9.9')),
    );
    expect(answers.filter(Boolean)).toHaveLength(7);
    expect(await rows('reset:address:10.9.9.9')).toBe(7);
  });

  it('keeps bookings and password resets apart: using up one never refuses the other', async () => {
    const limits = { perAccount: 50, perAddress: 4, windowMs: HOUR };
    const bookings = new ResetThrottle(pool, 'booking', limits);
    const resets = new ResetThrottle(pool, 'reset', limits);

    for (let i = 0; i < 4; i++) expect(await bookings.admit([`booking:b${i}`], '10.1.1.1')).toBe(true);
    expect(await bookings.admit(['booking:one-more'], '10.1.1.1')).toBe(false);
    // The address has used up its bookings, not its resets.
    expect(await resets.admit(['name:amy'], '10.1.1.1')).toBe(true);

    for (let i = 0; i < 4; i++) expect(await resets.admit([`name:r${i}`], '10.2.2.2')).toBe(true);
    expect(await resets.admit(['name:one-more'], '10.2.2.2')).toBe(false);
    expect(await bookings.admit(['booking:after-resets'], '10.2.2.2')).toBe(true);
  });
});
