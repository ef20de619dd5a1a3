import { randomUUID } from 'node:crypto';
import { LIMITS } from '@agency/contracts';
import {
  apiDescription,
  type EventStore,
  installErrorReplies,
  PostgresEventStore,
  sessionToken,
} from '@agency/platform';
import { Sessions } from '@agency/platform/sessions';
import { startTestProduct, TEST_ADMIN, type TestProduct } from '@agency/scripts/testing/test-product';
import Fastify from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CheckpointHub, type LiveStreamLimits, LiveStreams, liveUpdates } from './live-updates';

const JWT_SECRET = 'live-updates-test-secret-0123456789abcdef';
/** The LISTEN connections of this file's own hubs go by this name, so others' (the product's) are not counted. */
const LISTENER_NAME = 'live-updates-test';

const contact = (firstName: string, lastName: string) => ({
  firstName,
  lastName,
  address: ['1 High Street'],
  postcode: 'OX1 1AA',
  email: `${firstName}.${lastName}@example.com`.toLowerCase(),
  phone: [{ type: 'Mobile', number: '07700 900001' }],
});

type Heard = { event: string; data: { readModels: string[] } };

/** An open GET /api/live through the app's port, as a browser holds it. */
async function listen(url: string, token: string) {
  const controller = new AbortController();
  const response = await fetch(`${url}/api/live`, {
    headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
    signal: controller.signal,
  });
  const heard: Heard[] = [];
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  const state = { received: '', endedByServer: false };
  const reading = (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) {
        state.endedByServer = !controller.signal.aborted;
        return;
      }
      state.received += value;
      buffer += value;
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const field = (name: string) =>
          block
            .split('\n')
            .find((line) => line.startsWith(`${name}: `))
            ?.slice(name.length + 2);
        const data = field('data');
        if (field('event') && data) heard.push({ event: field('event')!, data: JSON.parse(data) });
        end = buffer.indexOf('\n\n');
      }
    }
  })();
  return {
    response,
    heard,
    /** Everything the stream carried, and whether the server ended it (not this client). */
    state,
    close: async () => {
      controller.abort();
      await reading;
    },
  };
}

/** Open screens hear of read models that moved, as far as they may see them. */
describe('GET /api/live: live updates over server-sent events', () => {
  let product: TestProduct;
  let admin: ReturnType<TestProduct['api']>;
  const tokens = { admin: '', ada: '', bob: '' };
  const ids = { ada: '', bob: '', adaEngagement: '', bobEngagement: '' };
  /** The product's database, for this file's own hubs and session checks. */
  let pool: pg.Pool;
  let store: EventStore;
  let listenerUrl = '';

  beforeAll(async () => {
    product = await startTestProduct({ jwtSecret: JWT_SECRET });
    pool = new pg.Pool({ connectionString: product.databaseUrl, options: '-c search_path=read' });
    store = await PostgresEventStore.connect(product.databaseUrl);
    const url = new URL(product.databaseUrl);
    url.searchParams.set('application_name', LISTENER_NAME);
    listenerUrl = url.toString();
    tokens.admin = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
    admin = product.api(tokens.admin);
    for (const name of ['ada', 'bob'] as const) {
      const { tutor } = await admin.post('/api/tutors/contact', {
        contact: contact(name, 'Live'),
        tutor: { username: `${name}live`, invoicePrefix: name.toUpperCase(), startDate: '2024-01-01' },
      });
      ids[name] = tutor.id;
      const { client } = await admin.post('/api/clients/contact', contact('Parent', `Of${name}`));
      const { child } = await admin.post(`/api/clients/child/${client.id}`, {
        firstName: 'Kid',
        lastName: `Of${name}`,
        dob: '2014-01-01',
      });
      const { engagement } = await admin.post('/api/tutors/engagement', {
        tutorId: tutor.id,
        studentId: child.id,
        rate: 30,
        commissionPct: 20,
        partnerPct: 0,
        startDate: '2024-01-01',
        subjects: ['Maths'],
      });
      ids[`${name}Engagement`] = engagement.id;
      await admin.post('/api/users', {
        username: name,
        password: `${name}-password-1`,
        role: 'tutor',
        tutorId: tutor.id,
        name,
      });
      tokens[name] = await product.login(name, `${name}-password-1`);
    }
    // A tutor who streams in one test only, so no other test's streams count against her caps.
    const { tutor } = await admin.post('/api/tutors/contact', {
      contact: contact('Cy', 'Live'),
      tutor: { username: 'cylive', invoicePrefix: 'CY', startDate: '2024-01-01' },
    });
    await admin.post('/api/users', {
      username: 'cy',
      password: 'cy-password-1',
      role: 'tutor',
      tutorId: tutor.id,
      name: 'cy',
    });
  });
  afterAll(async () => {
    await pool?.end();
    await store?.close();
    await product?.dispose();
  });

  /** This file's hubs' LISTEN connections, as PostgreSQL counts them. */
  const listenConnections = async () =>
    (
      await pool.query(
        `select count(*)::int as n from pg_stat_activity
          where datname = current_database() and application_name = $1 and query ilike 'listen%'`,
        [LISTENER_NAME],
      )
    ).rows[0].n;

  /**
   * GET /api/live alone on a service of its own, on the product's database and sessions (its tokens
   * pass), with the given limits: `checks` records every batched session check.
   */
  async function liveService(limits: Partial<LiveStreamLimits>, hub?: Pick<CheckpointHub, 'subscribe' | 'close'>) {
    // Closed with whatever sockets the test's client keeps open for reuse (fetch keeps one for seconds).
    const app = Fastify({ forceCloseConnections: true });
    installErrorReplies(app);
    await app.register(apiDescription, { title: 'live updates' });
    const sessions = new Sessions(pool);
    await app.register(sessionToken, { secret: JWT_SECRET, sessions });
    const checks: string[][] = [];
    const streams = new LiveStreams(
      {
        liveAmong: (sessionIds) => {
          checks.push([...sessionIds]);
          return sessions.liveAmong(sessionIds);
        },
      },
      limits,
    );
    const ownHub = new CheckpointHub(listenerUrl, pool, store);
    await app.register(liveUpdates, { hub: hub ?? ownHub, streams });
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    return { app, url, streams, hub: ownHub, checks };
  }

  const logOut = async (token: string) =>
    expect(
      (
        await product.command.app.inject({
          method: 'POST',
          url: '/auth/local/logout',
          headers: { authorization: `Bearer ${token}` },
          payload: {},
        })
      ).statusCode,
    ).toBe(200);

  const lesson = (tutor: 'ada' | 'bob', date: string) =>
    admin.post('/api/lessons/lesson?month=2025-03', {
      commandId: randomUUID(),
      tutorId: ids[tutor],
      lesson: { engagementId: ids[`${tutor}Engagement`], date, duration: 1 },
    });

  it('refuses a caller without a session', async () => {
    const response = await fetch(`${product.url}/api/live`);
    expect(response.status).toBe(401);
  });

  it('streams through the front door; staff hear every change, a tutor only their own', async () => {
    const streams = {
      admin: await listen(product.url, tokens.admin),
      ada: await listen(product.url, tokens.ada),
      bob: await listen(product.url, tokens.bob),
    };
    try {
      expect(streams.admin.response.status).toBe(200);
      expect(streams.admin.response.headers.get('content-type')).toMatch(/^text\/event-stream/);

      await lesson('ada', '2025-03-03');
      const lessonsChanged = (heard: Heard[]) => heard.filter((h) => h.data.readModels.includes('lessons')).length;
      await expect.poll(() => lessonsChanged(streams.admin.heard), { timeout: 60_000 }).toBeGreaterThan(0);
      await expect.poll(() => lessonsChanged(streams.ada.heard), { timeout: 60_000 }).toBeGreaterThan(0);
      expect(streams.admin.heard[0]).toEqual({
        event: 'change',
        data: { readModels: expect.arrayContaining(['lessons']) },
      });

      // Bob hears of his own lesson, recorded after Ada's, and never of hers.
      await lesson('bob', '2025-03-04');
      await expect.poll(() => lessonsChanged(streams.bob.heard), { timeout: 60_000 }).toBeGreaterThan(0);
      await expect.poll(() => lessonsChanged(streams.admin.heard), { timeout: 60_000 }).toBeGreaterThan(1);
      expect(lessonsChanged(streams.bob.heard)).toBe(1);
      expect(lessonsChanged(streams.ada.heard)).toBe(1);
      // Nothing names a tutor: the answer says which read models moved, not whose data.
      expect(JSON.stringify(streams.admin.heard)).not.toContain(ids.ada);
    } finally {
      await Promise.all(Object.values(streams).map((stream) => stream.close()));
    }
  });
  it('refuses a tutor streams past the caps with 429, before any stream opens', async () => {
    const open: Awaited<ReturnType<typeof listen>>[] = [];
    const refused = async (token: string) => {
      const response = await fetch(`${product.url}/api/live`, {
        headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
      });
      expect(response.status).toBe(429);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      return (await response.json()).error;
    };
    try {
      // Two sign-ins of Cy's: as many tabs as one sign-in may stream to, then one more.
      const sessions = [await product.login('cy', 'cy-password-1'), await product.login('cy', 'cy-password-1')];
      for (const token of sessions) {
        for (let tab = 0; tab < LIMITS.maxLiveStreamsPerSession; tab++) {
          const stream = await listen(product.url, token);
          open.push(stream);
          expect(stream.response.status).toBe(200);
        }
        expect(await refused(token)).toMatchObject({
          code: 'too_many_streams',
          message: expect.stringMatching(/sign-in/),
        });
      }
      expect(open).toHaveLength(LIMITS.maxLiveStreamsPerUser);
      // A third sign-in of hers has no stream open, but she has all a user may.
      const third = await product.login('cy', 'cy-password-1');
      expect(await refused(third)).toMatchObject({
        code: 'too_many_streams',
        message: expect.stringMatching(/per user/),
      });
    } finally {
      await Promise.all(open.map((stream) => stream.close()));
    }
  });

  it('refuses past the cap of streams in all, whoever asks', async () => {
    const live = await liveService({ total: 2 });
    const open = [await listen(live.url, tokens.ada), await listen(live.url, tokens.bob)];
    try {
      const response = await fetch(`${live.url}/api/live`, { headers: { authorization: `Bearer ${tokens.admin}` } });
      expect(response.status).toBe(429);
      expect((await response.json()).error.code).toBe('too_many_streams');
    } finally {
      await Promise.all(open.map((stream) => stream.close()));
      await live.app.close();
    }
  });

  it('opens one LISTEN connection for concurrent first subscribers, and none is left after them', async () => {
    const hub = new CheckpointHub(listenerUrl, pool, store);
    const subscriber = () => ({
      user: { id: 'someone', username: 'someone', role: 'admin' as const },
      send: () => {},
      end: () => {},
    });
    const unsubscribes = await Promise.all(Array.from({ length: 5 }, () => hub.subscribe(subscriber())));
    expect(hub.counts).toEqual({ connections: 1, subscribers: 5 });
    expect(await listenConnections()).toBe(1);
    for (const unsubscribe of unsubscribes) unsubscribe();
    await vi.waitFor(() => expect(hub.counts).toEqual({ connections: 0, subscribers: 0 }));
    await vi.waitFor(async () => expect(await listenConnections()).toBe(0), { timeout: 60_000 });
  });

  it('lets go of a stream closed while it subscribes: no subscriber and no connection left', async () => {
    const hub = new CheckpointHub(listenerUrl, pool, store);
    let entered = () => {};
    const subscribing = new Promise<void>((resolve) => {
      entered = resolve;
    });
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let subscribed: Promise<() => void> | undefined;
    const live = await liveService(
      {},
      {
        // Held between the stream's opening and its subscription, until the test lets it go.
        subscribe: async (subscriber) => {
          entered();
          await gate;
          subscribed = hub.subscribe(subscriber);
          return subscribed;
        },
        close: () => hub.close(),
      },
    );
    try {
      const controller = new AbortController();
      const request = fetch(`${live.url}/api/live`, {
        headers: { authorization: `Bearer ${tokens.ada}` },
        signal: controller.signal,
      }).catch(() => undefined);
      await subscribing;
      expect(live.streams.count).toBe(1);
      controller.abort();
      await request;
      // The service has seen the stream close, while its subscription is still under way.
      await vi.waitFor(() => expect(live.streams.count).toBe(0));
      release();
      await vi.waitFor(() => expect(subscribed).toBeDefined());
      await subscribed;
      await vi.waitFor(() => expect(hub.counts).toEqual({ connections: 0, subscribers: 0 }));
      await vi.waitFor(async () => expect(await listenConnections()).toBe(0), { timeout: 60_000 });
    } finally {
      await live.app.close();
    }
  });

  it('closes a stream at its maximum age; the browser is told to reconnect', async () => {
    const live = await liveService({ maxAgeMs: 200, tickMs: 20 });
    try {
      const stream = await listen(live.url, tokens.ada);
      expect(stream.response.status).toBe(200);
      await vi.waitFor(() => expect(stream.state.endedByServer).toBe(true), { timeout: 60_000 });
      expect(stream.state.received).toMatch(/^retry: \d+\n/);
      expect(live.streams.count).toBe(0);
      await vi.waitFor(() => expect(live.hub.counts).toEqual({ connections: 0, subscribers: 0 }));
      await stream.close();
    } finally {
      await live.app.close();
    }
  });

  it("ends a signed-out session's streams at the next check, all sessions checked in one query", async () => {
    const live = await liveService({ tickMs: 30 });
    const leaving = await product.login('ada', 'ada-password-1');
    const streams = {
      leaving: [await listen(live.url, leaving), await listen(live.url, leaving)],
      staying: await listen(live.url, tokens.bob),
    };
    try {
      // A check with both sessions in it has run while all three streams were open.
      await vi.waitFor(() => expect(live.checks.some((sessionIds) => sessionIds.length === 2)).toBe(true));
      await logOut(leaving);
      await vi.waitFor(
        () => expect(streams.leaving.map((stream) => stream.state.endedByServer)).toEqual([true, true]),
        {
          timeout: 60_000,
        },
      );
      const ticks = live.streams.ticks;
      await vi.waitFor(() => expect(live.streams.ticks).toBeGreaterThan(ticks + 1));
      expect(streams.staying.state.endedByServer).toBe(false);
      expect(live.streams.count).toBe(1);
      // One query a tick for every open stream, each session once in it.
      expect(live.checks.length).toBeLessThanOrEqual(live.streams.ticks);
      for (const sessionIds of live.checks) expect(new Set(sessionIds).size).toBe(sessionIds.length);
    } finally {
      await Promise.all([...streams.leaving, streams.staying].map((stream) => stream.close()));
      await live.app.close();
    }
  });
});
