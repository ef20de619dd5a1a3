import type pg from 'pg';

export type LoginLimits = {
  /** Failures of one username allowed before each next attempt waits. */
  freePerUsername: number;
  /** Failures from one client address allowed before each next attempt waits. */
  freePerAddress: number;
  /** The longest wait between attempts. */
  maxDelaySeconds: number;
  /** Failures this long ago are forgotten. */
  forgetAfterSeconds: number;
};

export const DEFAULT_LOGIN_LIMITS: LoginLimits = {
  freePerUsername: 5,
  freePerAddress: 20,
  maxDelaySeconds: 15 * 60,
  forgetAfterSeconds: 24 * 60 * 60,
};

export type Admission = { admitted: true } | { admitted: false; retryAfterSeconds: number };

/**
 * Login attempts are counted before the password is checked, in PostgreSQL (so a restart does
 * not forget them, and every instance sees the same counts): an attempt counts as a failure
 * until it succeeds. Past the free failures, each next attempt must wait 2^(n - free) seconds
 * after the last one (at most `maxDelaySeconds`); while it waits it is refused and not counted.
 * The check and the count are one row-locked upsert per key, so parallel guesses cannot all pass.
 * A success clears the username's count (the real user is never locked out for good) and takes
 * its own attempt off the address's count.
 */
export class LoginThrottle {
  constructor(
    private readonly db: pg.Pool,
    private readonly limits: LoginLimits = DEFAULT_LOGIN_LIMITS,
  ) {}

  private static keys(username: string, address: string) {
    return [
      { key: `u:${username.trim().toLowerCase()}`, free: 'freePerUsername' as const },
      { key: `a:${address}`, free: 'freePerAddress' as const },
    ];
  }

  /** The wait after `failures` recorded failures, in seconds (SQL). */
  private delaySql(failures: string, free: number) {
    return `least(${this.limits.maxDelaySeconds}, power(2, greatest(${failures} - ${free}, 0)))`;
  }

  /** Counts this attempt against the username and the address, or refuses it (counting nothing). */
  async admit(username: string, address: string): Promise<Admission> {
    const client = await this.db.connect();
    try {
      await client.query('begin');
      for (const { key, free } of LoginThrottle.keys(username, address)) {
        const freeCount = this.limits[free];
        // A key whose last failure is long past starts again from one.
        const counted = await client.query(
          `insert into auth.login_failures as f (key, failures, last_at) values ($1, 1, now())
           on conflict (key) do update
              set failures = case when f.last_at < now() - make_interval(secs => $2) then 1 else f.failures + 1 end,
                  last_at = now()
            where f.failures < ${freeCount}
               or f.last_at < now() - make_interval(secs => $2)
               or f.last_at + make_interval(secs => ${this.delaySql('f.failures', freeCount)}) <= now()
           returning failures`,
          [key, this.limits.forgetAfterSeconds],
        );
        if (counted.rowCount === 0) {
          await client.query('rollback');
          // On this same connection: holding one while waiting for another could starve the pool.
          const wait = await client.query(
            `select ceil(extract(epoch from last_at + make_interval(secs => ${this.delaySql('failures', freeCount)}) - now()))::int as seconds
               from auth.login_failures where key = $1`,
            [key],
          );
          return { admitted: false, retryAfterSeconds: Math.max(1, wait.rows[0]?.seconds ?? 1) };
        }
      }
      await client.query('commit');
      return { admitted: true };
    } catch (error) {
      await client.query('rollback').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  /** The attempt was the right password: the username starts afresh, the address is not charged. */
  async succeeded(username: string, address: string) {
    const [user, from] = LoginThrottle.keys(username, address);
    await this.db.query(
      `with cleared as (delete from auth.login_failures where key = $1)
       update auth.login_failures set failures = greatest(failures - 1, 0) where key = $2`,
      [user?.key, from?.key],
    );
  }

  /** Drops counts long forgotten. */
  async sweep() {
    await this.db.query('delete from auth.login_failures where last_at < now() - make_interval(secs => $1)', [
      this.limits.forgetAfterSeconds,
    ]);
  }
}
