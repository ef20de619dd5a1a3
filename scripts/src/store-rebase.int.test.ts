import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  assertStorePositionsValid,
  comparePositions,
  type EventToAppend,
  migrateEventStore,
  PostgresEventStore,
  type RecordedEvent,
  START,
  StorePositionsInvalid,
} from '@agency/platform';
import pg from 'pg';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { ProductConfig } from './config';
import { type RunningDatabase, startEmbeddedDatabase } from './embedded-database';
import { startProduct } from './product';
import { rebaseStore } from './store-positions';
import { createTestDatabase, endPool } from './testing/test-database';

const metadata = () => ({
  userId: 'user-1',
  role: 'admin',
  commandId: randomUUID(),
  correlationId: randomUUID(),
  causationId: randomUUID(),
});
const event = (type: string): EventToAppend => ({ type, data: { type }, metadata: metadata() });

const nextTransactionId = async (sql: pg.Pool) =>
  BigInt((await sql.query('select pg_snapshot_xmax(pg_current_snapshot())::text as next')).rows[0].next);

/**
 * What pg_dump and a restore carry over for the event store: every row as it is, transaction ids
 * and positions included, and the identity sequence where it was.
 */
async function dumpAndRestoreEvents(source: pg.Pool, target: pg.Pool) {
  const rows = (await source.query('select json_agg(e order by global_position) as rows from es.events e')).rows[0]
    .rows;
  await migrateEventStore(target);
  await target.query(
    'insert into es.events overriding system value select * from json_populate_recordset(null::es.events, $1::json)',
    [JSON.stringify(rows)],
  );
  await target.query(
    `select setval(pg_get_serial_sequence('es.events', 'global_position'), (select max(global_position) from es.events))`,
  );
}

/**
 * This test initdb's and starts a PostgreSQL cluster of its own, which on a busy two-core machine
 * (three test files at a time) takes far longer than the suite's usual minute.
 */
const CLUSTER_TEST_MS = 240_000;

describe('a store restored into another cluster', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  });

  it(
    'is refused at start with the fix named; after npm run store:rebase new events are delivered after the old ones',
    async () => {
      // A fresh cluster, initdb'd now: its transaction ids are low.
      const dataDir = mkdtempSync(join(tmpdir(), 'agency-restore-'));
      cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
      const fresh: RunningDatabase = await startEmbeddedDatabase({ dataDir, database: 'agency' });
      cleanups.push(() => fresh.stop());
      const target = new pg.Pool({ connectionString: fresh.url, max: 4 });
      cleanups.push(() => endPool(target));
      // A session left idle in a transaction is ended by the embedded server.
      expect((await target.query('show idle_in_transaction_session_timeout')).rows[0]).toEqual({
        idle_in_transaction_session_timeout: '1min',
      });

      // The original database, in a cluster that has handed out more ids than the fresh one.
      const original = await createTestDatabase();
      cleanups.push(() => original.drop());
      const source = new pg.Pool({ connectionString: original.url, max: 4 });
      cleanups.push(() => source.end());
      await migrateEventStore(source);
      const ahead = (await nextTransactionId(target)) + 500n - (await nextTransactionId(source));
      if (ahead > 0n) {
        await source.query(
          `do $$ begin for i in 1..${ahead} loop perform pg_current_xact_id(); commit; end loop; end $$`,
        );
      }
      const store = new PostgresEventStore(source);
      const [a, b, c] = [`a-${randomUUID()}`, `b-${randomUUID()}`, `c-${randomUUID()}`];
      await store.appendToStream(a, [event('A0'), event('A1')], { expectedRevision: 'no_stream' });
      // A transaction that took its id first but wrote last: `$all` order differs from position order.
      const early = new pg.Client({ connectionString: original.url });
      await early.connect();
      cleanups.push(() => early.end());
      await early.query('begin');
      // An appender announces itself before it has an id (readers then wait for it, never pass it).
      await early.query('select es.announce_append()');
      await early.query('select pg_current_xact_id()');
      await store.appendToStream(b, [event('B0')], { expectedRevision: 'no_stream' });
      await early.query('select * from es.append_to_stream($1, -1, $2, $3, $4, $5)', [
        c,
        [randomUUID()],
        ['C0'],
        [JSON.stringify({ type: 'C0' })],
        [JSON.stringify(metadata())],
      ]);
      await early.query('commit');
      await store.appendToStream(a, [event('A2')], { expectedRevision: 1 });
      const originalOrder = (await store.readAll({ limit: 1000 })).map((e) => e.type);
      expect(originalOrder).toEqual(['A0', 'A1', 'C0', 'B0', 'A2']);
      const oldHead = (await store.readAll({ limit: 1000 })).at(-1)!.position;

      await dumpAndRestoreEvents(source, target);
      // The read models came along, with a checkpoint at the old head (and a rebuild's leftover).
      await target.query(`create schema read; create schema read_build_1;
      create table read.checkpoint (commit_position text not null, prepare_position text not null);
      insert into read.checkpoint values ('${oldHead.commit}', '${oldHead.prepare}')`);
      expect(oldHead.commit).toBeGreaterThanOrEqual(await nextTransactionId(target));

      // Refused, at the start of the product and by the check itself, with the fix named.
      const productDir = mkdtempSync(join(tmpdir(), 'agency-restore-product-'));
      cleanups.push(async () => rmSync(productDir, { recursive: true, force: true }));
      const config: ProductConfig = {
        port: 0,
        host: '127.0.0.1',
        dataDir: productDir,
        databaseUrl: fresh.url,
        adminUsername: 'admin',
        adminPassword: 'admin-password-1',
        jwtSecret: 'test-secret-test-secret-test-secret',
        timeZone: 'Europe/London',
        publicUrl: 'http://localhost',
        mailFrom: 'Tutoring Agency <no-reply@localhost>',
        demoData: false,
      };
      await expect(startProduct(config, { log: () => {} })).rejects.toThrow(/restored or moved.*npm run store:rebase/s);
      await expect(assertStorePositionsValid(target)).rejects.toBeInstanceOf(StorePositionsInvalid);

      const outcome = await rebaseStore(target);
      expect(outcome).toMatchObject({ rebased: true, events: 5, transactions: 4 });
      expect(outcome.rebased && [...outcome.dropped].sort()).toEqual(['read', 'read_build_1']);
      await assertStorePositionsValid(target);
      expect(await rebaseStore(target)).toEqual({ rebased: false, reason: 'positions already valid' });

      // A subscriber from the start sees the old events in their old order, then the new ones.
      const restored = new PostgresEventStore(new pg.Pool({ connectionString: fresh.url, max: 4 }));
      cleanups.push(() => restored.close());
      const delivered: RecordedEvent[] = [];
      const stop = new AbortController();
      const following = restored.followAll(START, async (events) => void delivered.push(...events), {
        signal: stop.signal,
      });
      cleanups.push(async () => {
        stop.abort();
        await following;
      });
      await vi.waitFor(() => expect(delivered).toHaveLength(5), { timeout: 60_000, interval: 20 });
      await restored.appendToStream(b, [event('B1')], { expectedRevision: 0 });
      await restored.appendToStream(`d-${randomUUID()}`, [event('D0')], { expectedRevision: 'no_stream' });
      await vi.waitFor(() => expect(delivered).toHaveLength(7), { timeout: 60_000, interval: 20 });
      expect(delivered.map((e) => e.type)).toEqual([...originalOrder, 'B1', 'D0']);
      for (let i = 1; i < delivered.length; i++) {
        expect(comparePositions(delivered[i - 1]!.position, delivered[i]!.position)).toBe(-1);
      }

      // The product now starts, rebuilds its read models and projects what it appends.
      const product = await startProduct(config, { log: () => {} });
      cleanups.push(() => product.stop());
      expect(product.createdAdmin?.username).toBe('admin');
      await vi.waitFor(
        async () => {
          const users = await target.query("select 1 from read.users where username = 'admin'");
          expect(users.rowCount).toBe(1);
        },
        { timeout: 90_000, interval: 50 },
      );
    },
    CLUSTER_TEST_MS,
  );
});
