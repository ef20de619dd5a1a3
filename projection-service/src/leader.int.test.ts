import { createTestDatabase } from '@agency/scripts/testing/test-database';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ProjectionLeadership } from './leader';

/** The leader's lock session, as pg keeps it (a test reaches in to make it stop answering). */
const socketOf = (leadership: ProjectionLeadership) =>
  (leadership as unknown as { client?: { connection: { stream: { pause: () => void } } } }).client?.connection.stream;

describe('projection leadership on a lock session that stops answering', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  const running: ProjectionLeadership[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    for (const leadership of running) await leadership.stop();
    await database?.drop();
  });

  it('the leader steps down within its heartbeat time-out, and its lock goes to another instance', async () => {
    const events: string[] = [];
    const start = async (name: string) => {
      const leadership = new ProjectionLeadership(
        { connectionString: database.url },
        () => events.push(`${name} leads`),
        () => events.push(`${name} stepped down`),
        { retryMs: 100, heartbeatTimeoutMs: 300 },
      );
      running.push(leadership);
      await leadership.start();
      return leadership;
    };
    const first = await start('first');
    const second = await start('second');
    expect(first.isLeader).toBe(true);
    expect(second.isLeader).toBe(false);

    // Half-open: the connection is up, but nothing it says is heard any more (a dead peer, a
    // dropped network path). Without a time-out the heartbeat waits for ever and leads on.
    const stuck = first.sessionPid;
    socketOf(first)?.pause();
    await vi.waitFor(() => expect(events).toContain('first stepped down'), { timeout: 5000, interval: 20 });
    // Its session is ended, so the lock it held is free: one instance leads again (either may win it).
    const db = new pg.Client({ connectionString: database.url });
    await db.connect();
    try {
      await vi.waitFor(
        async () => expect((await db.query('select 1 from pg_stat_activity where pid = $1', [stuck])).rowCount).toBe(0),
        { timeout: 5000, interval: 20 },
      );
    } finally {
      await db.end();
    }
    await vi.waitFor(() => expect([first.isLeader, second.isLeader].filter(Boolean)).toEqual([true]), {
      timeout: 5000,
      interval: 20,
    });
  });
});
