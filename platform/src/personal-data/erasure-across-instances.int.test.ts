import { randomBytes } from 'node:crypto';
import { createTestDatabase } from '@agency/scripts/testing/test-database';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PersonalDataVault } from './vault';

const erased = () => 'Erased';

/**
 * Several instances share one database, each with its own cache of data keys. An
 * erasure on one must end every other's use of the key at once, not at its next restart: the
 * erasure is announced (NOTIFY) and every vault that follows the announcements drops the key.
 */
describe('an erasure reaches every instance sharing the database', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  const pools: pg.Pool[] = [];
  const stops: (() => Promise<void>)[] = [];
  const masterKey = randomBytes(32);

  const openVault = async () => {
    const pool = new pg.Pool({ connectionString: database.url, max: 4 });
    pool.on('error', () => {});
    pools.push(pool);
    return PersonalDataVault.open(pool, { masterKey });
  };

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    for (const stop of stops) await stop();
    for (const pool of pools) await pool.end();
    await database.drop();
  });

  it('drops the erased key from the other instance at once, and keeps the others', async () => {
    const here = await openVault();
    const there = await openVault();
    stops.push(await there.followErasures(50));
    const family = await here.encrypt('family-1', 'Wilhelmina Quartermaine', 'ClientRegistered.contact');
    const other = await here.encrypt('family-2', 'Ottoline Smith', 'ClientRegistered.contact');
    // The other instance reads both, so it holds both keys in its cache.
    expect(await there.decrypt(family, 'ClientRegistered.contact', erased)).toBe('Wilhelmina Quartermaine');
    expect(await there.decrypt(other, 'ClientRegistered.contact', erased)).toBe('Ottoline Smith');

    // Each vault counts the erasures it learns of: what was opened before may hold erased values.
    const [counted, countedThere] = [here.erasures, there.erasures];
    await here.shred('family-1');
    expect(here.erasures).toBeGreaterThan(counted);
    await vi.waitFor(async () =>
      expect(await there.decrypt(family, 'ClientRegistered.contact', erased)).toBe('Erased'),
    );
    expect(there.erasures).toBeGreaterThan(countedThere);
    expect(await there.decrypt(other, 'ClientRegistered.contact', erased)).toBe('Ottoline Smith');
  });

  it('an instance that does not follow keeps using a cached key: the failure the announcement prevents', async () => {
    const here = await openVault();
    const deaf = await openVault();
    const sealed = await here.encrypt('family-3', 'Peregrine Took', 'ClientRegistered.contact');
    expect(await deaf.decrypt(sealed, 'ClientRegistered.contact', erased)).toBe('Peregrine Took');
    await here.shred('family-3');
    expect(await deaf.decrypt(sealed, 'ClientRegistered.contact', erased)).toBe('Peregrine Took');
  });

  it('after its listening connection is lost, drops every cached key and listens again', async () => {
    const here = await openVault();
    const there = await openVault();
    const pool = pools.at(-1)!;
    stops.push(await there.followErasures(50));
    const first = await here.encrypt('family-4', 'Rosamund Pike', 'ClientRegistered.contact');
    expect(await there.decrypt(first, 'ClientRegistered.contact', erased)).toBe('Rosamund Pike');

    // The listening backend is cut off, and an erasure happens while nobody on that side listens.
    const listeners = await pool.query(
      `select pid from pg_stat_activity where datname = current_database() and query like 'listen %'`,
    );
    expect(listeners.rows.length).toBeGreaterThan(0);
    await pool.query('select pg_terminate_backend(pid) from unnest($1::int[]) pid', [
      listeners.rows.map((row) => row.pid),
    ]);
    await pool.query("update pii.subject_keys set key = null, shredded_at = now() where subject_id = 'family-4'");
    await vi.waitFor(async () => expect(await there.decrypt(first, 'ClientRegistered.contact', erased)).toBe('Erased'));

    // Listening again: a later erasure reaches it too.
    const second = await here.encrypt('family-5', 'Tobias Fünke', 'ClientRegistered.contact');
    expect(await there.decrypt(second, 'ClientRegistered.contact', erased)).toBe('Tobias Fünke');
    await vi.waitFor(async () => {
      const again = await pool.query(`select count(*)::int as n from pg_stat_activity where query like 'listen %'`);
      expect(again.rows[0].n).toBeGreaterThan(0);
    });
    await here.shred('family-5');
    await vi.waitFor(async () =>
      expect(await there.decrypt(second, 'ClientRegistered.contact', erased)).toBe('Erased'),
    );
  });
});
