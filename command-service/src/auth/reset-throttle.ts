import { inTransaction } from '@agency/platform/transaction';
import type pg from 'pg';

export type ResetLimits = { perAccount: number; perAddress: number; windowMs: number };

export const DEFAULT_RESET_LIMITS: ResetLimits = { perAccount: 3, perAddress: 10, windowMs: 60 * 60 * 1000 };

/**
 * What a throttle counts. Each purpose has its own rows (its keys begin with it), so one never
 * spends another's allowance: bookings from an address do not stop a password reset from it.
 */
export type ThrottlePurpose = 'booking' | 'reset' | 'family-link';

/**
 * Requests in a sliding window, kept in the database so a restart does not reset the count and
 * every instance sees the same counts: per account (or per unknown name, so known and unknown
 * names behave the same; for bookings, per e-mail address) and per client address. Used for
 * password reset requests and public bookings, each under its own purpose.
 */
export class ResetThrottle {
  constructor(
    private readonly db: pg.Pool,
    private readonly purpose: ThrottlePurpose,
    private readonly limits: ResetLimits = DEFAULT_RESET_LIMITS,
  ) {}

  /**
   * Counts this request against every key, or answers false (and counts nothing) past a limit.
   * The count and the insert hold a transaction lock on each key, so parallel requests are
   * admitted one after another: a burst gets exactly the limit, not the limit per request in flight.
   */
  async admit(accountKeys: string[], address: string): Promise<boolean> {
    const limitOf = new Map<string, number>();
    for (const key of accountKeys) limitOf.set(`${this.purpose}:${key}`, this.limits.perAccount);
    limitOf.set(`${this.purpose}:address:${address}`, this.limits.perAddress);
    // Every caller locks its keys in the same order, so two callers never wait on each other in a circle.
    const keys = [...limitOf.keys()].sort();
    const since = new Date(Date.now() - this.limits.windowMs);
    const admitted = await inTransaction(this.db, async (client) => {
      // Under a first key of their own (the table's), apart from the event store's and the projections' locks.
      await client.query(
        "select pg_advisory_xact_lock(hashtext('auth.reset_requests'), hashtext(key)) from unnest($1::text[]) as key",
        [keys],
      );
      // A statement after the locks: it sees every request admitted before them.
      const counts = await client.query(
        'select key, count(*)::int as n from auth.reset_requests where key = any($1) and requested_at > $2 group by key',
        [keys, since],
      );
      const within = counts.rows.every((row) => row.n < (limitOf.get(row.key) ?? 0));
      if (within) await client.query('insert into auth.reset_requests (key) select unnest($1::text[])', [keys]);
      return within;
    });
    if (admitted) {
      await this.db.query('delete from auth.reset_requests where requested_at < $1', [
        new Date(Date.now() - 24 * this.limits.windowMs),
      ]);
    }
    return admitted;
  }
}
