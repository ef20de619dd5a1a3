import { Writable } from 'node:stream';
import { PostgresEventStore, serviceLogger } from '@agency/platform';
import { createTestDatabase } from '@agency/scripts/testing/test-database';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildQueryApp } from './testing/query-app';

const SECRET = 'test-secret-test-secret-test-secret';

/** The request lines of reads cost CPU on every GET; refusals and errors are kept. */
describe('the query tree’s log', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let store: PostgresEventStore;
  beforeAll(async () => {
    database = await createTestDatabase();
    store = await PostgresEventStore.connect(database.url);
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  /** The lines the query app writes at `level` while answering a read and refusing one. */
  async function linesAt(level: string) {
    const lines: { msg: string; level: number; event?: string }[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    });
    const app = await buildQueryApp({
      databaseUrl: database.url,
      jwtSecret: SECRET,
      store,
      logger: { ...serviceLogger(level), stream },
    });
    try {
      // A read answered (503: no projection runs in this bare app, so health says degraded), whose
      // request line "info" leaves out; then one refused, whose warning it keeps.
      expect((await app.inject({ method: 'GET', url: '/api/health' })).statusCode).toBe(503);
      expect((await app.inject({ method: 'GET', url: '/api/clients' })).statusCode).toBe(401);
    } finally {
      await app.close();
    }
    return lines;
  }

  it('at info writes no request lines for reads, but every refusal (a warning)', async () => {
    const lines = await linesAt('info');
    expect(lines.map((line) => line.msg)).not.toContain('incoming request');
    expect(lines.map((line) => line.msg)).not.toContain('request completed');
    expect(lines).toContainEqual(expect.objectContaining({ level: 40, event: 'request.refused' }));
  });

  it('at debug writes every request', async () => {
    const lines = await linesAt('debug');
    expect(lines.filter((line) => line.msg === 'request completed')).toHaveLength(2);
  });
});
