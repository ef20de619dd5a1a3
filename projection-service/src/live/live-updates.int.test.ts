import { randomUUID } from 'node:crypto';
import { startTestProduct, TEST_ADMIN, type TestProduct } from '@agency/scripts/testing/test-product';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const contact = (firstName: string, lastName: string) => ({
  firstName,
  lastName,
  address: ['1 High Street'],
  postcode: 'OX1 1AA',
  email: `${firstName}.${lastName}@example.com`.toLowerCase(),
  phone: [{ type: 'Mobile', number: '07700 900001' }],
});

type Heard = { event: string; data: { readModels: string[] } };

/** An open GET /api/live through the front door (the command service's proxy), as a browser holds it. */
async function listen(url: string, token: string) {
  const controller = new AbortController();
  const response = await fetch(`${url}/api/live`, {
    headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
    signal: controller.signal,
  });
  const heard: Heard[] = [];
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  const reading = (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) return;
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
    close: async () => {
      controller.abort();
      await reading;
    },
  };
}

/** Issue 18, point 7: open screens hear of read models that moved, as far as they may see them. */
describe('GET /api/live: live updates over server-sent events', () => {
  let product: TestProduct;
  let admin: ReturnType<TestProduct['api']>;
  const tokens = { admin: '', ada: '', bob: '' };
  const ids = { ada: '', bob: '', adaEngagement: '', bobEngagement: '' };

  beforeAll(async () => {
    product = await startTestProduct();
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
  });
  afterAll(() => product?.dispose());

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
      await expect.poll(() => lessonsChanged(streams.admin.heard), { timeout: 10_000 }).toBeGreaterThan(0);
      await expect.poll(() => lessonsChanged(streams.ada.heard), { timeout: 10_000 }).toBeGreaterThan(0);
      expect(streams.admin.heard[0]).toEqual({
        event: 'change',
        data: { readModels: expect.arrayContaining(['lessons']) },
      });

      // Bob hears of his own lesson, recorded after Ada's, and never of hers.
      await lesson('bob', '2025-03-04');
      await expect.poll(() => lessonsChanged(streams.bob.heard), { timeout: 10_000 }).toBeGreaterThan(0);
      await expect.poll(() => lessonsChanged(streams.admin.heard), { timeout: 10_000 }).toBeGreaterThan(1);
      expect(lessonsChanged(streams.bob.heard)).toBe(1);
      expect(lessonsChanged(streams.ada.heard)).toBe(1);
      // Nothing names a tutor: the answer says which read models moved, not whose data.
      expect(JSON.stringify(streams.admin.heard)).not.toContain(ids.ada);
    } finally {
      await Promise.all(Object.values(streams).map((stream) => stream.close()));
    }
  });
});
