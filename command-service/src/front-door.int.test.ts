import { createHmac, randomUUID } from 'node:crypto';
import { startTestProduct, TEST_ADMIN, type TestProduct } from '@agency/scripts/testing/test-product';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const SECRET = 'test-secret-test-secret-test-secret';

const contact = (firstName: string, lastName: string, email = `${firstName}.${lastName}@example.com`) => ({
  firstName,
  lastName,
  address: ['1 High Street', '', 'Oxford', ''],
  postcode: 'OX1 1AA',
  email: email.toLowerCase(),
  phone: [{ type: 'Mobile', number: '07700 900001' }],
});

const base64url = (value: string | Buffer) => Buffer.from(value).toString('base64url');

const METRICS_TOKEN = 'metrics-token-of-the-front-door-test';

/** Prometheus's text format as `name{labels}` → value (labels as the product writes them, in declared order). */
function samples(text: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    found.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return found;
}

/** The same claims under another header, signed with the product's own secret (or not at all). */
function reSigned(token: string, alg: 'HS512' | 'HS384' | 'none') {
  const claims = token.split('.')[1] as string;
  const head = base64url(JSON.stringify({ alg, typ: 'JWT' }));
  if (alg === 'none') return `${head}.${claims}.`;
  const hash = alg === 'HS512' ? 'sha512' : 'sha384';
  return `${head}.${claims}.${createHmac(hash, SECRET).update(`${head}.${claims}`).digest('base64url')}`;
}

describe('the hardened front door, through the whole product (PUBLIC_URL https)', () => {
  let product: TestProduct;
  let db: pg.Pool;
  let admin: string;
  let tutorId: string;
  let tutorToken: string;
  let engagementId: string;

  const post = (url: string, payload: object, token = admin, headers: Record<string, string> = {}) =>
    product.command.app.inject({
      method: 'POST',
      url,
      payload,
      headers: { authorization: `Bearer ${token}`, ...headers },
    });
  const ok = async (url: string, payload: object, token = admin) => {
    const response = await post(url, { commandId: randomUUID(), ...payload }, token);
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  };
  const countEvents = async () => Number((await db.query('select count(*) from es.events')).rows[0].count);

  beforeAll(async () => {
    product = await startTestProduct({ publicUrl: 'https://agency.example.test', metricsToken: METRICS_TOKEN });
    db = new pg.Pool({ connectionString: product.databaseUrl });
    admin = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
    const { tutor } = await ok('/api/tutors/contact', {
      contact: contact('Hana', 'Door'),
      tutor: { username: 'hanadoor', invoicePrefix: 'HD', startDate: '2024-01-01' },
    });
    tutorId = tutor.id;
    const { client } = await ok('/api/clients/contact', contact('Parent', 'Door'));
    const { child } = await ok(`/api/clients/child/${client.id}`, {
      firstName: 'Kid',
      lastName: 'Door',
      dob: '2014-02-02',
    });
    // March 10th to April 15th 2025, then over: off the tutor's roster of current students.
    const { engagement } = await ok('/api/tutors/engagement', {
      tutorId,
      studentId: child.id,
      rate: 30,
      commissionPct: 25,
      partnerPct: 10,
      startDate: '2025-03-10',
      subjects: ['Maths'],
    });
    engagementId = engagement.id;
    await ok('/api/tutors/engagement', {
      id: engagementId,
      tutorId,
      rate: 30,
      commissionPct: 25,
      partnerPct: 10,
      startDate: '2025-03-10',
      endDate: '2025-04-15',
      subjects: ['Maths'],
      change: 'termination',
    });
    await ok('/api/users', { username: 'hana', password: 'Tutor-door-pass-91', role: 'tutor', tutorId, name: 'Hana' });
    tutorToken = await product.login('hana', 'Tutor-door-pass-91');
  });
  afterAll(async () => {
    await db?.end();
    await product?.dispose();
  });

  it('answers every API and session call with security headers and Cache-Control: no-store, errors and queries included', async () => {
    const answers = [
      await fetch(`${product.url}/api/clients?includeInactive=Y`, { headers: { authorization: `Bearer ${admin}` } }),
      await fetch(`${product.url}/api/tutors/${tutorId}`, { headers: { authorization: `Bearer ${admin}` } }),
      await fetch(`${product.url}/api/clients`),
      await fetch(`${product.url}/auth/local/me`, { headers: { authorization: `Bearer ${admin}` } }),
      await fetch(`${product.url}/api/no-such-thing`, { headers: { authorization: `Bearer ${admin}` } }),
      // Addresses the router cannot read: a malformed %-escape, a part over 100 characters.
      await fetch(`${product.url}/api/tutors/%zz`, { headers: { authorization: `Bearer ${admin}` } }),
      await fetch(`${product.url}/api/tutors/${'a'.repeat(101)}`, { headers: { authorization: `Bearer ${admin}` } }),
      await fetch(`${product.url}/auth/local`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'nobody', password: 'wrong-password' }),
      }),
    ];
    for (const answer of answers) {
      const where = `${answer.url} ${answer.status}`;
      expect(answer.headers.get('cache-control'), where).toBe('no-store');
      expect(answer.headers.get('content-security-policy'), where).toContain("frame-ancestors 'none'");
      expect(answer.headers.get('x-content-type-options'), where).toBe('nosniff');
      expect(answer.headers.get('referrer-policy'), where).toBe('no-referrer');
      expect(answer.headers.get('strict-transport-security'), where).toMatch(/^max-age=\d+/);
      if (answer.status >= 400) expect((await answer.json()).error.code, where).toBeTypeOf('string');
    }
    const commandAnswer = await post('/api/clients/contact', { commandId: randomUUID(), ...contact('Ivy', 'Store') });
    expect(commandAnswer.headers['cache-control']).toBe('no-store');
  });

  it('sets the session cookie Secure (and HttpOnly, SameSite) when PUBLIC_URL is https', async () => {
    const login = await product.command.app.inject({
      method: 'POST',
      url: '/auth/local',
      payload: { username: TEST_ADMIN.username, password: TEST_ADMIN.password },
    });
    const cookie = String(login.headers['set-cookie']);
    expect(cookie).toMatch(/^token=/);
    expect(cookie).toMatch(/; Secure/);
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Lax/);
  });

  it('refuses a POST that is not JSON with 415, body-less ones included, as a page on another site would send them', async () => {
    const before = await countEvents();
    const attempts: { url: string; init: RequestInit }[] = [
      { url: `/api/tutors/activate/${tutorId}`, init: {} },
      { url: '/auth/local/keepalive', init: {} },
      { url: '/auth/local/logout', init: {} },
      { url: '/auth/local/logout', init: { body: 'anything' } },
      { url: '/api/clients/contact', init: { body: JSON.stringify(contact('Text', 'Plain')) } },
      {
        url: '/api/clients/contact',
        init: { body: new URLSearchParams({ firstName: 'Form' }), headers: { cookie: `token=${admin}` } },
      },
    ];
    for (const { url, init } of attempts) {
      const answer = await fetch(`${product.url}${url}`, {
        method: 'POST',
        ...init,
        headers: { cookie: `token=${admin}`, ...(init.headers as Record<string, string>) },
      });
      expect(answer.status, url).toBe(415);
      expect((await answer.json()).error.code, url).toBe('unsupported_media_type');
    }
    expect(await countEvents()).toBe(before);
    // The same calls as JSON are taken (the UI sends {} when there is nothing to say).
    const keepalive = await post('/auth/local/keepalive', {});
    expect(keepalive.statusCode, keepalive.body).toBe(200);
  });

  it('takes Idempotency-Key and X-Correlation-Id only as UUIDs (400, nothing written) and records a correlation id given', async () => {
    const before = await countEvents();
    const badHeaders: Record<string, string>[] = [
      { 'idempotency-key': 'retry-1' },
      { 'idempotency-key': `${randomUUID()}x` },
      { 'x-correlation-id': 'a'.repeat(5000) },
      { 'x-correlation-id': 'robert); drop table es.events;--' },
    ];
    for (const headers of badHeaders) {
      const answer = await post('/api/clients/contact', contact('Head', 'Er'), admin, headers);
      expect(answer.statusCode, JSON.stringify(headers)).toBe(400);
      expect(answer.json().error.code).toBe('invalid_input');
      expect(Object.keys(answer.json().error.fields)[0]).toMatch(/^(Idempotency-Key|X-Correlation-Id)$/);
    }
    expect(await countEvents()).toBe(before);
    const [key, correlation] = [randomUUID(), randomUUID()];
    const taken = await post('/api/clients/contact', contact('Head', 'Er'), admin, {
      'idempotency-key': key,
      'x-correlation-id': correlation,
    });
    expect(taken.statusCode, taken.body).toBe(200);
    const stored = await db.query(
      "select metadata->>'commandId' as command, metadata->>'correlationId' as correlation from es.events where metadata->>'commandId' = $1",
      [key],
    );
    expect(stored.rows.length).toBeGreaterThan(0);
    for (const row of stored.rows) expect(row).toEqual({ command: key, correlation });
  });

  it("keeps a tutor's and a family's e-mail to one address", async () => {
    const before = await countEvents();
    const list = 'hana@example.com, boss@example.com';
    const tutor = await post('/api/tutors/contact', {
      commandId: randomUUID(),
      contact: contact('Lis', 'Ted', list),
      tutor: { username: 'listed', invoicePrefix: 'LT', startDate: '2024-01-01' },
    });
    expect(tutor.statusCode).toBe(400);
    expect(tutor.json().error.fields['contact.email']).toMatch(/one email address/);
    const edit = await post('/api/tutors/tutor', {
      commandId: randomUUID(),
      contact: contact('Hana', 'Door', 'hana@example.com;boss@example.com'),
      tutor: { id: tutorId, username: 'hanadoor', invoicePrefix: 'HD', startDate: '2024-01-01' },
    });
    expect(edit.statusCode).toBe(400);
    const family = await post('/api/clients/contact', { commandId: randomUUID(), ...contact('Fam', 'Ily', list) });
    expect(family.statusCode).toBe(400);
    expect(family.json().error.fields.email).toMatch(/one email address/);
    expect(await countEvents()).toBe(before);
  });

  it('generates an invoice only for a month the tutor had an engagement in, ended ones included, and never a future month', async () => {
    const save = (year: number, month: number, token = admin) =>
      post('/api/invoices/save', { commandId: randomUUID(), tutorId, year, month }, token);
    const before = await countEvents();
    for (const [year, month] of [
      [2011, 1],
      [2025, 2],
      [2025, 5],
      [2024, 3],
    ] as const) {
      for (const token of [admin, tutorToken]) {
        const refused = await save(year, month, token);
        expect(refused.statusCode, `${year}-${month} ${refused.body}`).toBe(409);
        expect(refused.json().error.message).toMatch(/had no engagement in/);
      }
    }
    const future = new Date();
    const next = await save(future.getUTCFullYear() + 1, 1, tutorToken);
    expect(next.statusCode).toBe(400);
    expect(next.json().error.message).toMatch(/has not started yet/);
    // Nothing was locked or numbered: no event at all.
    expect(await countEvents()).toBe(before);
    // The engagement's own months, the last one after it ended, can be invoiced.
    for (const month of [3, 4]) {
      const made = await save(2025, month, tutorToken);
      expect(made.statusCode, made.body).toBe(200);
      expect(made.json().invoice.month).toBe(`2025-0${month}`);
    }
  });

  it('serves GET /metrics to METRICS_TOKEN alone, and its figures move as commands run', async () => {
    const metrics = (authorization?: string) =>
      fetch(`${product.url}/metrics`, { headers: authorization ? { authorization } : {} });
    for (const authorization of [
      undefined,
      'Bearer wrong-token-of-the-same-length!',
      `Bearer ${admin}`,
      `Basic ${base64url(`metrics:${METRICS_TOKEN}`)}`,
    ]) {
      const refused = await metrics(authorization);
      expect(refused.status, authorization).toBe(401);
      expect((await refused.json()).error.code).toBe('unauthenticated');
    }
    const scrape = async () => {
      const answer = await metrics(`Bearer ${METRICS_TOKEN}`);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      return samples(await answer.text());
    };
    const before = await scrape();
    const created = await post('/api/clients/contact', { commandId: randomUUID(), ...contact('Mia', 'Metric') });
    expect(created.statusCode, created.body).toBe(200);
    const refused = await post('/api/clients/contact', { commandId: randomUUID() });
    expect(refused.statusCode).toBe(400);
    const read = await fetch(`${product.url}/api/clients/${created.json().client.id}`, {
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(read.status).toBe(200);
    const live = new AbortController();
    const stream = await fetch(`${product.url}/api/live`, {
      headers: { authorization: `Bearer ${admin}` },
      signal: live.signal,
    });
    expect(stream.status).toBe(200);
    const after = await scrape();
    live.abort();
    const moved = (key: string) => (after.get(key) ?? 0) - (before.get(key) ?? 0);

    const command = 'route="/api/clients/contact"';
    expect(moved(`commands_total{${command},outcome="ok",code=""}`)).toBe(1);
    expect(moved(`commands_total{${command},outcome="refused",code="invalid_input"}`)).toBe(1);
    expect(moved(`http_requests_total{method="POST",${command},status="200"}`)).toBe(1);
    expect(moved(`http_requests_total{method="POST",${command},status="400"}`)).toBe(1);
    expect(moved(`http_request_duration_seconds_count{method="POST",${command}}`)).toBe(2);
    // A query handed to the query side in-process is counted once, by the query side's route pattern.
    expect(moved('http_requests_total{method="GET",route="/api/clients/:id",status="200"}')).toBe(1);
    expect([...after.keys()].filter((key) => key.includes('route="/api/*"') || key.includes('route="/api"'))).toEqual(
      [],
    );
    expect(moved('event_store_events_appended_total')).toBeGreaterThanOrEqual(1);
    expect(after.get('live_streams_open')).toBe(1);
    expect(after.get('mail_outbox_backlog')).toBeGreaterThanOrEqual(0);
    expect(after.has('process_cpu_user_seconds_total')).toBe(true);
    // Every projection and reactor has its lag, in events and seconds, and none is stopped.
    const family = (name: string) => [...after].filter(([key]) => key.startsWith(`${name}{`));
    for (const [name, label] of [
      ['projection', 'projection="clients"'],
      ['reactor', 'reactor="mail"'],
    ] as const) {
      for (const figure of [`${name}_lag_events`, `${name}_lag_seconds`]) {
        expect(after.has(`${figure}{${label}}`), figure).toBe(true);
        for (const [key, value] of family(figure)) expect(value, key).toBeGreaterThanOrEqual(0);
      }
      expect(family(`${name}_stopped`).filter(([, value]) => value !== 0)).toEqual([]);
    }
  });

  it('pins the JWT algorithm: the same claims signed with HS512, HS384 or none are refused by commands and queries alike', async () => {
    for (const alg of ['HS512', 'HS384', 'none'] as const) {
      const forged = reSigned(admin, alg);
      const me = await product.command.app.inject({
        method: 'GET',
        url: '/auth/local/me',
        headers: { authorization: `Bearer ${forged}` },
      });
      expect(me.statusCode, alg).toBe(401);
      const query = await fetch(`${product.url}/api/clients`, { headers: { authorization: `Bearer ${forged}` } });
      expect(query.status, alg).toBe(401);
      const command = await post('/api/clients/contact', { commandId: randomUUID(), ...contact('Al', 'G') }, forged);
      expect(command.statusCode, alg).toBe(401);
    }
    // The genuine token still works.
    expect(
      (
        await product.command.app.inject({
          method: 'GET',
          url: '/auth/local/me',
          headers: { authorization: `Bearer ${admin}` },
        })
      ).statusCode,
    ).toBe(200);
  });
});
