import { createTestDatabase } from '@agency/scripts/testing/test-database';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { movedCheckpoints, ProjectionWatch } from './projection-watch';

const at = (commit: number) => ({ commit: BigInt(commit), prepare: 0n });

describe('read-your-writes: a write is visible once its projections are past it, stalled or not', () => {
  let pool: pg.Pool;
  let drop: () => Promise<void>;
  let watch: ProjectionWatch;

  beforeAll(async () => {
    const database = await createTestDatabase();
    drop = database.drop;
    pool = new pg.Pool({ connectionString: database.url });
    // The columns the watch reads, as the query side's first migration makes them.
    await pool.query(`create schema read;
      create table read.projection_checkpoints (
        name text primary key, handles text[] not null, commit_position bigint not null,
        prepare_position bigint not null, failure jsonb)`);
    await pool.query(
      `insert into read.projection_checkpoints values ('lessons', '{LessonRecorded}', 10, 0, '{"error": "bad"}')`,
    );
    watch = new ProjectionWatch(pool);
    await watch.start();
  });
  afterAll(async () => {
    await watch.stop();
    await pool.end();
    await drop();
  });

  it('answers visible for a write a stalled projection has already applied, and not visible for one it has not', async () => {
    expect(await watch.waitFor(at(5), 1000, ['LessonRecorded'])).toBe(true);
    expect(await watch.waitFor(at(20), 1000, ['LessonRecorded'])).toBe(false);
  });

  it('reads "stalled" again before answering it: a projection that recovered (no notification seen) is waited for', async () => {
    // Recovered and moved on, without a NOTIFY (as when the LISTEN connection was lost).
    await pool.query(
      "update read.projection_checkpoints set failure = null, commit_position = 30 where name = 'lessons'",
    );
    expect(await watch.waitFor(at(20), 1000, ['LessonRecorded'])).toBe(true);
  });

  it('is woken by the position a notification carries, without reading the checkpoints, and only once it is reached', async () => {
    // The table says 30; only the notifications say further, so only they can settle these waits.
    const waiting = watch.waitFor(at(45), 5000, ['LessonRecorded']);
    let settled: boolean | undefined;
    void waiting.then((reached) => {
      settled = reached;
    });
    await pool.query("select pg_notify('projection_checkpoint', 'lessons=40/0')");
    expect(await watch.waitFor(at(40), 5000, ['LessonRecorded'])).toBe(true);
    expect(settled).toBeUndefined();
    await pool.query("select pg_notify('projection_checkpoint', 'lessons=50/0')");
    expect(await waiting).toBe(true);
  });
});

describe('the checkpoint notification payload', () => {
  it('names the moved checkpoints, or says nothing when empty or not understood', () => {
    expect(movedCheckpoints('lessons=12/11 clients=9/8')).toEqual([
      { name: 'lessons', position: { commit: 12n, prepare: 11n } },
      { name: 'clients', position: { commit: 9n, prepare: 8n } },
    ]);
    expect(movedCheckpoints('')).toBeUndefined();
    expect(movedCheckpoints('lessons')).toBeUndefined();
  });
});
