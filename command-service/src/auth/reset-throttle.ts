import type pg from 'pg';

export type ResetLimits = { perAccount: number; perAddress: number; windowMs: number };

export const DEFAULT_RESET_LIMITS: ResetLimits = { perAccount: 3, perAddress: 10, windowMs: 60 * 60 * 1000 };

/**
 * Password reset requests in a sliding window, kept in the database so a restart does not
 * reset the count: per account (or per unknown name, so known and unknown names behave the
 * same) and per client address.
 */
export class ResetThrottle {
  constructor(
    private readonly db: pg.Pool,
    private readonly limits: ResetLimits = DEFAULT_RESET_LIMITS,
  ) {}

  /** Counts this request against every key, or answers false (and counts nothing) past a limit. */
  async admit(accountKeys: string[], address: string): Promise<boolean> {
    const since = new Date(Date.now() - this.limits.windowMs);
    const keys = [...accountKeys, `address:${address}`];
    const counts = await this.db.query(
      'select key, count(*)::int as n from auth.reset_requests where key = any($1) and requested_at > $2 group by key',
      [keys, since],
    );
    for (const row of counts.rows) {
      const limit = String(row.key).startsWith('address:') ? this.limits.perAddress : this.limits.perAccount;
      if (row.n >= limit) return false;
    }
    await this.db.query('insert into auth.reset_requests (key) select unnest($1::text[])', [keys]);
    await this.db.query('delete from auth.reset_requests where requested_at < $1', [
      new Date(Date.now() - 24 * this.limits.windowMs),
    ]);
    return true;
  }
}
