import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCommandApp, createMailer } from '@agency/command-service';
import { PostgresEventStore } from '@agency/platform';
import { createTestDatabase } from '@agency/scripts/testing/test-database';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * With the query app in the same process (`npm start`), GET /api/* is handed to it as the very
 * request, answered on the same connection: nothing is fetched from `queryUrl` (here a closed port).
 */
describe('GET /api/* handed to the query app in this process (real PostgreSQL)', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let store: PostgresEventStore;
  const outbox = mkdtempSync(join(tmpdir(), 'agency-outbox-'));
  const queryApp = Fastify();
  queryApp.get('/api/answer', async (request) => ({ asked: request.url, method: request.method }));

  beforeAll(async () => {
    database = await createTestDatabase();
    store = await PostgresEventStore.connect(database.url);
    await queryApp.ready();
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
    await queryApp.close();
    rmSync(outbox, { recursive: true, force: true });
  });

  const commandApp = (withQueryApp: boolean) =>
    buildCommandApp({
      databaseUrl: database.url,
      store,
      jwtSecret: 'test-secret-test-secret-test-secret',
      queryUrl: 'http://127.0.0.1:9',
      ...(withQueryApp ? { queryApp } : {}),
      mailer: createMailer({ outboxDir: outbox, from: 'x@localhost', log: () => {} }),
    });

  it('answers from the query app, with its status, headers and body, for GET and HEAD', async () => {
    const { app } = await commandApp(true);
    try {
      const answer = await app.inject({ method: 'GET', url: '/api/answer?year=2025' });
      expect(answer.statusCode).toBe(200);
      expect(answer.json()).toEqual({ asked: '/api/answer?year=2025', method: 'GET' });
      const head = await app.inject({ method: 'HEAD', url: '/api/answer' });
      expect(head.statusCode).toBe(200);
      expect((await app.inject({ method: 'GET', url: '/api/nothing-here' })).statusCode).toBe(404);
      // The command app's own routes are still its own.
      expect((await app.inject({ method: 'GET', url: '/api/docs/service.json' })).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('without it, GETs go through the proxy to queryUrl (which does not answer here)', async () => {
    const { app } = await commandApp(false);
    try {
      expect((await app.inject({ method: 'GET', url: '/api/answer' })).statusCode).toBeGreaterThanOrEqual(500);
    } finally {
      await app.close();
    }
  });
});
