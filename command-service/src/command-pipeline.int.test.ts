import { randomUUID } from 'node:crypto';
import { familyInvoice } from '@agency/domain';
import { startTestProduct, TEST_ADMIN, type TestProduct } from '@agency/scripts/testing/test-product';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFLICT_ATTEMPTS, ConcurrentChange, type Contention } from './pipeline/command-pipeline';

const contact = {
  firstName: 'Ann',
  lastName: 'Lee',
  address: ['1 High Street', '', 'Oxford', ''],
  postcode: 'OX1 1AA',
  email: 'ann@example.com',
  phone: [
    { type: 'Home', number: '01865 000000' },
    { type: 'Mobile', number: '' },
  ],
};

describe('command pipeline (real PostgreSQL, both services)', () => {
  let product: TestProduct;
  let db: pg.Pool;
  let admin: string;
  const countEvents = async () => Number((await db.query('select count(*) from es.events')).rows[0].count);

  beforeAll(async () => {
    product = await startTestProduct();
    db = new pg.Pool({ connectionString: product.databaseUrl });
    admin = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
  });
  afterAll(async () => {
    await db.end();
    await product.dispose();
  });

  const post = (url: string, payload: object, token = admin, headers: Record<string, string> = {}) =>
    product.command.app.inject({
      method: 'POST',
      url,
      payload,
      headers: { authorization: `Bearer ${token}`, ...headers },
    });
  const get = (url: string, token = admin) =>
    fetch(`${product.url}${url}`, { headers: { authorization: `Bearer ${token}` } }).then(async (r) => ({
      status: r.status,
      body: await r.json(),
    }));

  it('refuses a body that breaks the contract with 400 and every field message, writing nothing', async () => {
    const before = await countEvents();
    const response = await post('/api/clients/contact', { firstName: ' ', address: ['', ''], phone: [{ number: '' }] });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({
      code: 'invalid_input',
      fields: {
        firstName: 'First name is required',
        lastName: 'Last name is required',
        address: 'Address is required',
        postcode: 'Postcode is required',
        email: 'Email is required',
        phone: 'Phone is required',
      },
    });
    expect(await countEvents()).toBe(before);
  });

  it('answers after the projection caught up, so the next GET sees the write (read-your-writes)', async () => {
    const response = await post('/api/clients/contact', { ...contact, commandId: randomUUID() });
    expect(response.statusCode).toBe(200);
    const { client, position } = response.json();
    expect(position).toMatch(/^\d+\/\d+$/);
    const detail = await get(`/api/clients/${client.id}`);
    expect(detail.status).toBe(200);
    // Blank address lines and phone entries without a number were dropped on save.
    expect(detail.body.client.contacts[0]).toMatchObject({
      address: ['1 High Street', 'Oxford'],
      phone: [{ type: 'Home', number: '01865 000000' }],
    });
  });

  it('a repeated commandId appends nothing and returns the first answer', async () => {
    const commandId = randomUUID();
    const first = await post('/api/clients/contact', { ...contact, commandId });
    const afterFirst = await countEvents();
    // The same action, its fields in another order: a retry.
    const { firstName, ...rest } = contact;
    const again = await post('/api/clients/contact', { commandId, ...rest, firstName });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(first.json());
    expect(await countEvents()).toBe(afterFirst);
    // The Idempotency-Key header works the same way.
    const key = randomUUID();
    const viaHeader = await post('/api/clients/contact', contact, admin, { 'idempotency-key': key });
    const repeated = await post('/api/clients/contact', contact, admin, { 'idempotency-key': key });
    expect(repeated.json()).toEqual(viaHeader.json());
  });

  it('a commandId sent again for another action (another body, another route) is refused with 422, changing nothing', async () => {
    const commandId = randomUUID();
    const first = await post('/api/clients/contact', { ...contact, commandId });
    expect(first.statusCode).toBe(200);
    const { client } = first.json();
    const before = await countEvents();

    const otherBody = await post('/api/clients/contact', { ...contact, firstName: 'Changed', commandId });
    expect(otherBody.statusCode).toBe(422);
    expect(otherBody.json().error).toEqual({
      code: 'command_id_reused',
      message: 'This commandId was used for another action. Send this action with a new commandId.',
      fields: { commandId: 'Used for another action' },
    });
    const otherRoute = await post(`/api/clients/active/${client.id}`, { active: false, commandId });
    expect(otherRoute.statusCode).toBe(422);
    expect(otherRoute.json().error.code).toBe('command_id_reused');
    // The same route with other parameters is another action too.
    const otherClient = (await post('/api/clients/contact', contact)).json().client;
    const activeId = randomUUID();
    expect((await post(`/api/clients/active/${client.id}`, { active: false, commandId: activeId })).statusCode).toBe(
      200,
    );
    const afterActive = await countEvents();
    const sameBodyOtherClient = await post(`/api/clients/active/${otherClient.id}`, {
      active: false,
      commandId: activeId,
    });
    expect(sameBodyOtherClient.statusCode).toBe(422);

    expect(await countEvents()).toBe(afterActive);
    expect(afterActive).toBe(before + 2);
    expect((await get(`/api/clients/${client.id}`)).body.client.contacts[0].firstName).toBe('Ann');
    expect((await get(`/api/clients/${otherClient.id}`)).body.client.active).toBe(true);
    // The action it was first used for still gets its answer.
    const retry = await post('/api/clients/contact', { ...contact, commandId });
    expect(retry.json()).toEqual(first.json());
  });

  it('a kept answer holds no personal value in clear; once the family is erased, a replay of it reveals none', async () => {
    const email = `kept.${randomUUID().slice(0, 8)}@example.com`;
    const dob = '2014-03-27';
    const registered = { ...contact, lastName: 'Keeping', email, commandId: randomUUID() };
    const first = await post('/api/clients/contact', registered);
    expect(first.statusCode, first.body).toBe(200);
    const { client } = first.json();
    const childCommand = { firstName: 'Kit', lastName: 'Keeping', dob, commandId: randomUUID() };
    const child = await post(`/api/clients/child/${client.id}`, childCommand);
    expect(child.statusCode, child.body).toBe(200);
    const kept = async () =>
      (await db.query<{ response: string }>('select response::text from command.processed_commands')).rows
        .map((row) => row.response)
        .join('\n');
    expect(await kept()).not.toContain(email);
    expect(await kept()).not.toContain(dob);
    expect(await kept()).not.toContain('Keeping');

    // A retry still gets the whole first answer.
    const replay = await post('/api/clients/contact', registered);
    expect(replay.json()).toEqual(first.json());
    expect(replay.json().contact.email).toBe(email);
    expect((await post(`/api/clients/child/${client.id}`, childCommand)).json()).toEqual(child.json());

    const erased = await post(`/api/clients/erase/${client.id}`, { reason: 'Asked by the family', confirm: true });
    expect(erased.statusCode, erased.body).toBe(200);
    for (const [url, body, answer] of [
      ['/api/clients/contact', registered, first],
      [`/api/clients/child/${client.id}`, childCommand, child],
    ] as const) {
      const late = await post(url, body);
      expect(late.statusCode).toBe(200);
      expect(late.body).not.toContain(email);
      expect(late.body).not.toContain(dob);
      expect(late.body).not.toContain('Keeping');
      // The same shape, its ids kept, every other text "Erased".
      const shape = (value: unknown): unknown =>
        Array.isArray(value)
          ? value.map(shape)
          : value && typeof value === 'object'
            ? Object.fromEntries(Object.entries(value).map(([key, item]) => [key, shape(item)]))
            : typeof value;
      expect(shape(late.json())).toEqual(shape(answer.json()));
      expect(late.json().position).toBe(answer.json().position);
    }
    expect((await post('/api/clients/contact', registered)).json()).toMatchObject({
      client: { id: client.id },
      contact: { id: first.json().contact.id, email: 'Erased', lastName: 'Erased' },
    });
  });

  it('an answer kept in clear before answers were sealed keeps only its erased form', async () => {
    const commandId = randomUUID();
    const mine = randomUUID();
    await post('/api/clients/contact', { ...contact, commandId: mine });
    const { user_id: user } = (
      await db.query('select user_id from command.processed_commands where command_id = $1', [mine])
    ).rows[0];
    const clientId = randomUUID();
    await db.query(
      `insert into command.processed_commands (command_id, user_id, status_code, response) values ($1, $2, 200, $3)`,
      [
        commandId,
        user,
        JSON.stringify({
          client: { id: clientId, active: true },
          contact: { email: 'legacy@example.com', phone: [{ type: 'Home', number: '01865 111111' }] },
          position: '1/2',
          visible: true,
        }),
      ],
    );
    await product.command.deps.processed.forgetClearAnswers();
    const row = await db.query('select response::text from command.processed_commands where command_id = $1', [
      commandId,
    ]);
    expect(row.rows[0].response).not.toContain('legacy@example.com');
    expect(row.rows[0].response).not.toContain('01865 111111');
    const replay = await post('/api/clients/contact', { ...contact, commandId });
    expect(replay.json()).toEqual({
      client: { id: clientId, active: true },
      contact: { email: 'Erased', phone: [{ type: 'Erased', number: 'Erased' }] },
      position: '1/2',
      visible: true,
    });
  });

  it('two concurrent deliveries of one commandId append once', async () => {
    const commandId = randomUUID();
    const before = await countEvents();
    const [a, b] = await Promise.all([
      post('/api/clients/contact', { ...contact, commandId }),
      post('/api/clients/contact', { ...contact, commandId }),
    ]);
    expect(a.statusCode).toBe(200);
    expect(b.json()).toEqual(a.json());
    expect(await countEvents()).toBe(before + 1);
  });

  it('concurrent commands on one client all land: conflicts are retried', async () => {
    const { client } = (await post('/api/clients/contact', contact)).json();
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        post(`/api/clients/child/${client.id}`, {
          firstName: `Child${i}`,
          lastName: 'Lee',
          dob: `2015-01-0${i + 1}`,
        }),
      ),
    );
    expect(results.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200, 200]);
    const detail = await get(`/api/clients/${client.id}`);
    expect(detail.body.client.children).toHaveLength(6);
  });

  it('a broken rule is a 4xx with a message, and an unknown id is 404', async () => {
    const response = await post(`/api/clients/contact/${randomUUID()}`, contact);
    expect(response.statusCode).toBe(404);
    expect(response.json().error.message).toBe('There is no such client.');
    const badDate = await post(`/api/clients/child/${randomUUID()}`, {
      firstName: 'A',
      lastName: 'B',
      dob: '2015-02-30',
    });
    expect(badDate.statusCode).toBe(400);
    expect(badDate.json().error.fields.dob).toBe('Not a real date');
  });

  it('checks roles on the server: no token is 401, a tutor may not create clients', async () => {
    const anonymous = await product.command.app.inject({
      method: 'POST',
      url: '/api/clients/contact',
      payload: contact,
    });
    expect(anonymous.statusCode).toBe(401);
    expect((await get('/api/clients', 'not-a-token')).status).toBe(401);
    const tutorToken = await product.command.signSession({
      id: 'u-t',
      username: 'tutor1',
      role: 'tutor',
      tutorId: 't-1',
    });
    const before = await countEvents();
    const refused = await post('/api/clients/contact', contact, tutorToken);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.code).toBe('forbidden');
    expect(await countEvents()).toBe(before);
  });

  it('gives up with 409 when a stream keeps changing under the command', async () => {
    const { client } = (await post('/api/clients/contact', contact)).json();
    const store = product.command.deps.store;
    const realAppend = store.appendToStream.bind(store);
    // Someone else appends to the same client between every read and append.
    store.appendToStream = async (streamId, events, options) => {
      if (streamId === `client-${client.id}` && events[0]?.type === 'ChildAdded') {
        const data = events[0].data as { child: Record<string, unknown> };
        const otherChild = { ...data.child, id: randomUUID() };
        // Another command's event: its own id, not the one this command's event derives from its commandId.
        await realAppend(streamId, [{ ...events[0], id: randomUUID(), data: { ...data, child: otherChild } }], {
          expectedRevision: 'any',
        });
      }
      return realAppend(streamId, events, options);
    };
    try {
      const response = await post(`/api/clients/child/${client.id}`, {
        firstName: 'Busy',
        lastName: 'Lee',
        dob: '2016-01-01',
      });
      expect(response.statusCode).toBe(409);
      expect(response.json().error.code).toBe('concurrent_change');
    } finally {
      store.appendToStream = realAppend;
    }
  });

  it('decides again after each lost race as the one retry policy allows, more times on a contended stream', async () => {
    const streamId = `retry-policy-${randomUUID()}`;
    const store = product.command.deps.store;
    const realAppend = store.appendToStream.bind(store);
    let won = 0;
    // Another writer takes a number of its own on the stream before each of this command's appends, `times` times.
    const othersWin = (times: number) => {
      won = 0;
      store.appendToStream = async (id, events, options) => {
        if (id === streamId && won < times && events[0]) {
          won++;
          const theirs = { ...events[0], id: randomUUID(), data: { ...events[0].data, documentId: randomUUID() } };
          await realAppend(id, [theirs], { expectedRevision: 'any' });
        }
        return realAppend(id, events, options);
      };
    };
    const system = { id: 'system', username: 'system', role: 'admin' as const };
    const ours = randomUUID();
    const take = (contention?: Contention, documentId = randomUUID()) =>
      product.command
        .actAs(system, randomUUID())
        .context.run(streamId, familyInvoice.sequenceDecider, { type: 'TakeNumber', documentId }, contention);
    try {
      othersWin(Number.POSITIVE_INFINITY);
      await expect(take()).rejects.toBeInstanceOf(ConcurrentChange);
      expect(won).toBe(CONFLICT_ATTEMPTS.usual);
      othersWin(CONFLICT_ATTEMPTS.usual + 4);
      await expect(take()).rejects.toBeInstanceOf(ConcurrentChange);
      expect(won).toBe(CONFLICT_ATTEMPTS.usual);
      othersWin(CONFLICT_ATTEMPTS.usual + 4);
      const state = await take('contended', ours);
      expect(won).toBe(CONFLICT_ATTEMPTS.usual + 4);
      expect(state.numbers.get(ours)).toBe(state.last);
    } finally {
      store.appendToStream = realAppend;
    }
  });

  it('every event carries who, which command and when', async () => {
    const commandId = randomUUID();
    const { client } = (await post('/api/clients/contact', { ...contact, commandId })).json();
    const [event] = await product.command.deps.store.readStream(`client-${client.id}`);
    expect(event?.type).toBe('ClientRegistered');
    expect(event?.metadata).toMatchObject({ role: 'admin', commandId, causationId: commandId, schemaVersion: 1 });
    expect(event?.metadata.userId).toBeTruthy();
    expect(Date.parse(event?.metadata.recordedAt ?? '')).not.toBeNaN();
  });
});
