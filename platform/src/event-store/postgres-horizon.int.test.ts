import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createTestDatabase } from '@agency/scripts/testing/test-database';
import pg from 'pg';
import { describe, expect, it, vi } from 'vitest';
import { anEvent, eventMetadata, usePostgresStoreDatabase } from '../testing/postgres-store-bed';
import { comparePositions, type Position, type RecordedEvent, START } from './port';
import { APPENDER_LOCK, horizonCtes } from './postgres/all-horizon';
import { migrateEventStore, type PostgresEventStore } from './postgres/postgres-event-store';

/**
 * How far `$all` readers go: every running appender holds them back, and nothing else does
 * (all-horizon.ts). Open transactions are barriers the test commits or rolls back itself.
 */
describe('PostgreSQL $all horizon: only appenders hold readers back', () => {
  const bed = usePostgresStoreDatabase({ others: 1 });
  const { closers, open, connect } = bed;
  const stream = () => `horizon-${randomUUID()}`;
  const types = (events: RecordedEvent[]) => events.map((e) => e.type);
  /** es.append_to_stream on `client`, inside whatever transaction it has open. */
  const appendOn = (client: pg.Client, streamId: string, type: string, expected = -1) =>
    client.query('select * from es.append_to_stream($1, $2, $3, $4, $5, $6)', [
      streamId,
      expected,
      [randomUUID()],
      [type],
      [JSON.stringify({})],
      [JSON.stringify(eventMetadata())],
    ]);
  /** A transaction that writes (so it has a transaction id), left open until the test ends it. */
  const openWriter = async (url: string, statements: string[]) => {
    const client = await connect(url);
    await client.query('begin');
    for (const statement of statements) await client.query(statement);
    const row = (await client.query('select pg_current_xact_id_if_assigned()::text as xid, pg_backend_pid() as pid'))
      .rows[0];
    expect(row.xid).not.toBeNull();
    return { client, xid: BigInt(row.xid), pid: row.pid as number };
  };
  const follow = (store: PostgresEventStore, from: Position) => bed.follow(store, from).delivered;

  it('unrelated transactions with an id (a temp table, DDL on a scratch schema, a write in another database) do not hold $all back', async () => {
    const { store, steps, logged } = bed.observed();
    const from = await store.head();
    const scratch = `scratch_${randomUUID().replaceAll('-', '')}`;
    const unrelated = [
      await openWriter(bed.url(), ['create temp table scratch (x int)', 'insert into scratch values (1)']),
      // As an as-of view or a rebuild beside the live product does.
      await openWriter(bed.url(), [
        `create schema ${scratch}`,
        `create table ${scratch}.t (x int)`,
        `insert into ${scratch}.t select generate_series(1, 100)`,
        `create index on ${scratch}.t (x)`,
      ]),
      await openWriter(bed.otherUrl(), ['create table t (x int)', 'insert into t values (1)']),
    ];

    const id = stream();
    await store.appendToStream(id, [anEvent('First'), anEvent('Second')], { expectedRevision: 'no_stream' });
    const read = await store.readAll({ from });
    expect(types(read)).toEqual(['First', 'Second']);
    // Every one of them is older than the events: a horizon at pg_snapshot_xmin would have stopped before them.
    for (const { xid } of unrelated) expect(read[0]!.position.commit).toBeGreaterThan(xid);
    expect(await store.head()).toEqual(read[1]!.position);

    const delivered = follow(store, from);
    await vi.waitFor(() => expect(types(delivered)).toEqual(['First', 'Second']), { timeout: 60_000, interval: 20 });
    // Then it waits for the next NOTIFY, as with nothing withheld, and names no holder.
    await vi.waitFor(
      () => {
        const waits = steps.filter((s) => s.kind === 'wait');
        expect(waits.at(-1)).toMatchObject({ withheld: false, ms: 200 });
      },
      { timeout: 60_000, interval: 20 },
    );
    expect(logged).toEqual([]);

    // All of them were open throughout.
    for (const { client, xid } of unrelated) {
      expect((await client.query('select pg_current_xact_id_if_assigned()::text as xid')).rows[0].xid).toBe(
        xid.toString(),
      );
      await client.query('rollback');
    }
  });

  it('a slow appender holds back every later event until it commits, beside an older unrelated transaction that does not; then each once, in order', async () => {
    const { store, steps, logged } = bed.observed();
    const from = await store.head();
    const unrelated = await openWriter(bed.url(), [
      'create temp table scratch (x int)',
      'insert into scratch values (1)',
    ]);
    await store.appendToStream(stream(), [anEvent('Before')], { expectedRevision: 'no_stream' });

    // The appender inserts its event, then stays open (the barrier): its id is below every later event's.
    const appender = await connect();
    const appenderPid = (await appender.query('select pg_backend_pid() as pid')).rows[0].pid as number;
    await appender.query('begin');
    const heldStream = stream();
    await appendOn(appender, heldStream, 'Held');
    for (const i of [1, 2, 3])
      await store.appendToStream(stream(), [anEvent(`Later${i}`)], { expectedRevision: 'no_stream' });

    const delivered = follow(store, from);
    await vi.waitFor(
      () => {
        expect(types(delivered)).toEqual(['Before']);
        expect(logged.some((line) => line.includes(`pid ${appenderPid} `))).toBe(true);
      },
      { timeout: 60_000, interval: 20 },
    );
    expect(types(delivered)).toEqual(['Before']);
    expect(types(await store.readAll({ from }))).toEqual(['Before']);
    expect(steps.filter((s) => s.kind === 'wait').at(-1)).toMatchObject({ withheld: true });
    // The log names the appender, never the unrelated transaction.
    expect(logged.find((line) => line.includes(`pid ${appenderPid} `))).toContain('es.append_to_stream');
    expect(logged.join('\n')).not.toContain(`pid ${unrelated.pid} `);

    await appender.query('commit');
    await vi.waitFor(() => expect(delivered).toHaveLength(5), { timeout: 60_000, interval: 20 });
    await store.appendToStream(stream(), [anEvent('Marker')], { expectedRevision: 'no_stream' });
    await vi.waitFor(() => expect(delivered).toHaveLength(6), { timeout: 60_000, interval: 20 });
    expect(types(delivered)).toEqual(['Before', 'Held', 'Later1', 'Later2', 'Later3', 'Marker']);
    expect(new Set(delivered.map((e) => e.id)).size).toBe(6);
    expect(delivered[1]!.streamId).toBe(heldStream);
    expect(types(await store.readAll({ from }))).toEqual(types(delivered));
    await unrelated.client.query('rollback');
  });

  it('a lock copy that reads an appender mid-commit (its id lock and APPENDER_LOCK under two virtual transactions, one pid) still holds readers back at its id', async () => {
    // pg_locks reads each row's virtual transaction from the holder's PGPROC as it reaches the
    // row, and a committing backend clears it before releasing its locks: a copy taken across
    // that moment lists the two locks of one transaction under `3/7` and `3/0` (all-horizon.ts).
    // The copy is given here as rows, so the moment is hit every time.
    const client = await connect();
    const horizonOf = async (rows: string) =>
      (
        await client.query(
          `with copied (locktype, mode, granted, transactionid, virtualtransaction, pid, classid, objid, objsubid, database) as (
             select locktype, mode, granted, transactionid::xid, virtualtransaction, pid, classid::oid, objid::oid,
                    objsubid::int2, database::oid
               from (values ${rows}) as v(locktype, mode, granted, transactionid, virtualtransaction, pid, classid,
                                          objid, objsubid, database)
           ),
           ${horizonCtes({ locks: 'copied', snapshot: `'100:110:105,107'::pg_snapshot` })}
           select (select id from horizon)::text as horizon`,
        )
      ).rows[0].horizon as string;
    const database = `(select oid from pg_database where datname = current_database())::text`;
    const appenderLock = (vxid: string, pid: number) =>
      `('advisory', 'ShareLock', true, null, '${vxid}', ${pid}, '${APPENDER_LOCK.key1}', '${APPENDER_LOCK.key2}', '2', ${database})`;
    const idLock = (xid: number, vxid: string, pid: number) =>
      `('transactionid', 'ExclusiveLock', true, '${xid}', '${vxid}', ${pid}, null, null, null, null)`;
    // 105 appends (backend 4001, caught mid-commit); 107 (backend 4002) holds no APPENDER_LOCK.
    const nonAppender = idLock(107, '4/9', 4002);
    expect(await horizonOf([idLock(105, '3/7', 4001), appenderLock('3/0', 4001), nonAppender].join(', '))).toBe('105');
    expect(await horizonOf([appenderLock('3/0', 4001), idLock(105, '3/7', 4001), nonAppender].join(', '))).toBe('105');
    // The same copy a moment later, its lxid cleared in both rows: still the appender.
    expect(await horizonOf([idLock(105, '3/0', 4001), appenderLock('3/0', 4001), nonAppender].join(', '))).toBe('105');
    // Once the appender has released its id lock, 105 is not proven a non-appender either: readers wait.
    expect(await horizonOf([appenderLock('3/0', 4001), nonAppender].join(', '))).toBe('105');
    // A non-appender alone never holds readers back, whatever its virtual transaction reads.
    expect(await horizonOf([idLock(105, '3/7', 4001), nonAppender].join(', '))).toBe('110');
  });

  it('a bulk writer that announces itself first (the scale seed, a rebase) holds readers back like an append', async () => {
    const store = open();
    const from = await store.head();
    const bulk = await openWriter(bed.url(), [
      'select es.announce_append()',
      `create temp table staging as select 'Bulk' as type`,
      `insert into es.events (stream_id, stream_revision, event_id, event_type, data, metadata)
       select '${stream()}', 0, '${randomUUID()}', type, '{}', '${JSON.stringify(eventMetadata())}' from staging`,
    ]);
    await store.appendToStream(stream(), [anEvent('Later')], { expectedRevision: 'no_stream' });
    // Committed, but after the bulk writer's id: withheld until the bulk commits.
    expect(await store.readAll({ from })).toEqual([]);
    await bulk.client.query('commit');
    expect(types(await store.readAll({ from }))).toEqual(['Bulk', 'Later']);
  });

  it('an append must be the first write of its transaction: after another write, or after a savepoint rolled its announcement back, it is refused', async () => {
    const client = await connect();
    // Readers may already have passed an id that holds no announcement.
    await client.query('begin');
    await client.query('create temp table before_append (x int)');
    await expect(appendOn(client, stream(), 'Late')).rejects.toMatchObject({ code: 'ES412' });
    await client.query('rollback');

    // Rolling back to a savepoint releases the announcement with the events; the id stays.
    await client.query('begin');
    await client.query('savepoint first_try');
    await appendOn(client, stream(), 'Undone');
    await client.query('rollback to savepoint first_try');
    await expect(appendOn(client, stream(), 'Again')).rejects.toMatchObject({ code: 'ES412' });
    await client.query('rollback');

    // Announced first, a transaction writes what it likes, and appends as often as it likes.
    const [one, two] = [stream(), stream()];
    await client.query('begin');
    await client.query('select es.announce_append()');
    await client.query('create temp table after_announce (x int)');
    await appendOn(client, one, 'One');
    await appendOn(client, two, 'Two');
    await appendOn(client, one, 'Three', 0);
    await client.query('commit');
    const store = open();
    expect(types(await store.readStream(one))).toEqual(['One', 'Three']);
    expect(types(await store.readStream(two))).toEqual(['Two']);
  });

  it('a session-level hold of the appenders’ lock is no announcement: released mid-transaction, readers would pass the events', async () => {
    const store = open();
    const from = await store.head();
    const client = await connect();
    const lock = `${APPENDER_LOCK.key1}, ${APPENDER_LOCK.key2}`;
    await client.query(`select pg_advisory_lock_shared(${lock})`);
    // Its id first, then an append: only the session's hold of the lock could let it through.
    await client.query('begin');
    await client.query('create temp table session_locked (x int)');
    const appended = await appendOn(client, stream(), 'Hidden').then(
      () => true,
      (error) => {
        expect(error).toMatchObject({ code: 'ES412' });
        return false;
      },
    );
    if (appended) await client.query(`select pg_advisory_unlock_shared(${lock})`);
    // Another appender commits after it; a reader reads, then the first transaction ends.
    await store.appendToStream(stream(), [anEvent('Later')], { expectedRevision: 'no_stream' });
    const first = await store.readAll({ from });
    await client.query(appended ? 'commit' : 'rollback');
    if (!appended) await client.query(`select pg_advisory_unlock_shared(${lock})`);
    const rest = await store.readAll({ from: first.at(-1)?.position ?? from });
    // Read in two steps, $all holds every event once: none was passed while it could still commit.
    expect(types([...first, ...rest])).toEqual(types(await store.readAll({ from })));
  });

  it('appenders held open across others’ commits, beside unrelated writers: a live subscriber sees every event once, in $all order', async () => {
    const store = open({ pollIntervalMs: 50 });
    const from = await store.head();
    const delivered = follow(store, from);
    const longUnrelated = await openWriter(bed.url(), [
      'create temp table scratch (x int)',
      'insert into scratch values (1)',
    ]);
    let stop = false;
    const noise = (async () => {
      const client = await connect();
      await client.query('create temp table noise (x int)');
      while (!stop) {
        await client.query('begin');
        await client.query('insert into noise values (1)');
        await client.query('commit');
      }
    })();

    // Each writer appends to its own streams (so no writer waits for another's stream lock). Every
    // third append is held open until two more appends of other writers have committed, unless
    // every other writer is itself holding or done: a barrier on commits, not on time.
    const writers = 4;
    const perWriter = 60;
    let committed = 0;
    let active = writers;
    let holding = 0;
    const waiting = new Set<() => void>();
    const recheck = () => {
      for (const check of [...waiting]) check();
    };
    const holdUntil = (target: number) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (committed >= target || holding >= active) {
            waiting.delete(check);
            resolve();
          }
        };
        waiting.add(check);
        check();
      });
    const writer = async (w: number) => {
      const client = await connect();
      for (let i = 0; i < perWriter; i++) {
        await client.query('begin');
        await appendOn(client, `horizon-stress-${w}-${i % 5}`, `W${w}`, i < 5 ? -1 : Math.floor(i / 5) - 1);
        if (i % 3 === 0) {
          holding++;
          await holdUntil(committed + 2);
          holding--;
        }
        await client.query('commit');
        committed++;
        recheck();
      }
      active--;
      recheck();
    };
    await Promise.all(Array.from({ length: writers }, (_, w) => writer(w)));
    stop = true;
    await noise;

    const total = writers * perWriter;
    await vi.waitFor(() => expect(delivered).toHaveLength(total), { timeout: 60_000, interval: 20 });
    expect(new Set(delivered.map((e) => e.id)).size).toBe(total);
    // In $all order, as a fresh read from the same position gives it, and each stream in revision order.
    for (let i = 1; i < delivered.length; i++) {
      expect(comparePositions(delivered[i - 1]!.position, delivered[i]!.position)).toBeLessThan(0);
    }
    expect((await store.readAll({ from, limit: total + 1 })).map((e) => e.id)).toEqual(delivered.map((e) => e.id));
    const revisions = new Map<string, number>();
    for (const e of delivered) {
      expect(e.revision).toBe((revisions.get(e.streamId) ?? -1) + 1);
      revisions.set(e.streamId, e.revision);
    }
    await longUnrelated.client.query('rollback');
  });

  it('the first start after an upgrade waits for the transactions begun under the old append function', async () => {
    const db = await createTestDatabase();
    closers.push(() => db.drop());
    const pool = new pg.Pool({ connectionString: db.url });
    closers.push(() => pool.end());
    // A store of the previous release: its append function announced nothing.
    const baseline = readFileSync(new URL('../migrations/event-store/001_event_store.sql', import.meta.url), 'utf8');
    await pool.query(baseline.replace('perform es.announce_append();', ''));
    await pool.query('drop function es.announce_append()');
    // An append already inside the old function, waiting for its stream's lock (held by `blocker`):
    // it has written nothing yet, so nothing of it stops the schema from being replaced.
    const oldStream = stream();
    const blocker = await connect(db.url);
    await blocker.query('begin');
    await blocker.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [oldStream]);
    const old = await connect(db.url);
    const oldPid = (await old.query('select pg_backend_pid() as pid')).rows[0].pid as number;
    const oldAppend = appendOn(old, oldStream, 'Old');
    await vi.waitFor(
      async () =>
        expect(
          (await pool.query('select wait_event_type from pg_stat_activity where pid = $1', [oldPid])).rows[0]
            .wait_event_type,
        ).toBe('Lock'),
      { timeout: 60_000, interval: 20 },
    );

    const logged: string[] = [];
    let migrated = false;
    const migrating = migrateEventStore(pool, { log: (line) => logged.push(line) }).then(() => {
      migrated = true;
    });
    await vi.waitFor(() => expect(logged.join('\n')).toMatch(new RegExp(`pids .*\\b${oldPid}\\b`)), {
      timeout: 60_000,
      interval: 20,
    });
    // The new function is in place, but the start goes on only once the old append has ended.
    expect(
      (await pool.query(`select to_regprocedure('es.announce_append()') is not null as present`)).rows[0].present,
    ).toBe(true);
    expect(migrated).toBe(false);
    await blocker.query('commit');
    await oldAppend;
    await migrating;
    const store = open({}, db.url);
    expect(types(await store.readAll({ from: START }))).toEqual(['Old']);
  });
});
