import { startTestProduct, TEST_ADMIN, type TestProduct } from '@agency/scripts/testing/test-product';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AS_OF_LIMITS, onAsOfPoint } from './as-of';
import { agencyTime } from './recorded-events';

/**
 * An as-of view beside everything else: it holds no transaction id (so `$all` never waits for it),
 * a command issued meanwhile is answered visible, and past a small queue it is refused with 429.
 * The as-of requests are held at a point where they have their turn, their connection and their
 * position, and wait for the test: no sleeps, no timings.
 */
describe('as-of views beside commands (real PostgreSQL)', () => {
  let product: TestProduct;
  let admin: string;
  const ids = { tutor: '', engagement: '', lesson: '' };

  beforeAll(async () => {
    product = await startTestProduct();
    admin = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
    const api = product.api(admin);
    const contact = (firstName: string) => ({
      firstName,
      lastName: 'Held',
      address: ['2 Queue Row'],
      postcode: 'OX2 2BB',
      email: `${firstName.toLowerCase()}.held@example.com`,
      phone: [{ type: 'Mobile', number: '07700 900002' }],
    });
    ids.tutor = (
      await api.post('/api/tutors/contact', {
        contact: contact('Hal'),
        tutor: { username: 'hal.held', invoicePrefix: 'HH', startDate: '2024-09-01' },
      })
    ).tutor.id;
    const family = await api.post('/api/clients/contact', contact('Hetty'));
    const { child } = await api.post(`/api/clients/child/${family.client.id}`, {
      firstName: 'Hugo',
      lastName: 'Held',
      dob: '2014-04-04',
    });
    ids.engagement = (
      await api.post('/api/tutors/engagement', {
        tutorId: ids.tutor,
        studentId: child.id,
        rate: 30,
        commissionPct: 25,
        partnerPct: 10,
        startDate: '2025-01-06',
        subjects: ['Maths'],
      })
    ).engagement.id;
    ids.lesson = (await saveLesson(1)).lesson.id;
  });
  afterAll(() => product?.dispose());

  const saveLesson = (duration: number) =>
    product.api(admin).post(`/api/lessons/lesson?from=2025-02-10&to=2025-02-10&month=2025-02&tutorId=${ids.tutor}`, {
      tutorId: ids.tutor,
      lesson: { ...(ids.lesson ? { id: ids.lesson } : {}), engagementId: ids.engagement, date: '2025-02-10', duration },
    });

  it('answers a command visible while as-of requests run, holds no transaction id, and refuses past the queue with 429', async () => {
    const asOf = agencyTime(new Date(Date.now() + 60_000), 'Europe/London').replace(' ', 'T');
    const path = `/api/lessons?year=2025&month=2&tutorId=${ids.tutor}&asOf=${asOf}`;
    const ask = () => fetch(`${product.url}${path}`, { headers: { authorization: `Bearer ${admin}` } });
    const signal = () => {
      let open!: () => void;
      return { opened: new Promise<void>((resolve) => (open = resolve)), open: () => open() };
    };
    const [running, waiting, release] = [signal(), signal(), signal()];
    let [answering, queued] = [0, 0];
    const removes = [
      onAsOfPoint('answering', async () => {
        answering += 1;
        if (answering === AS_OF_LIMITS.running) running.open();
        await release.opened;
      }),
      onAsOfPoint('queued', () => {
        queued += 1;
        if (queued === AS_OF_LIMITS.waiting) waiting.open();
      }),
    ];
    const db = new pg.Client({ connectionString: product.databaseUrl });
    await db.connect();
    try {
      const held = Array.from({ length: AS_OF_LIMITS.running + AS_OF_LIMITS.waiting }, ask);
      await running.opened;
      await waiting.opened;

      // One more than runs and waits: refused at once.
      const refused = await ask();
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('1');
      const body = await refused.json();
      expect(body.error).toMatchObject({ code: 'too_many_requests', fields: { asOf: expect.any(String) } });
      expect(body.error.message).toMatch(/try again/);

      // The running ones have worked out their position (their last statement) and hold their
      // connection outside any transaction: no transaction id, no snapshot kept.
      const asOfBackends = await db.query(
        `select state, backend_xid::text as xid, backend_xmin::text as xmin from pg_stat_activity
          where datname = current_database() and pid <> pg_backend_pid() and query like '%valid_from_commit desc%'`,
      );
      expect(asOfBackends.rows).toEqual(
        Array.from({ length: AS_OF_LIMITS.running }, () => ({ state: 'idle', xid: null, xmin: null })),
      );

      // A command meanwhile: answered once its lists show it.
      const saved = await saveLesson(2);
      expect(saved.visible).toBe(true);
      expect(saved.lesson).toMatchObject({ id: ids.lesson, duration: 2 });

      release.open();
      const answers = await Promise.all(held.map(async (response) => (await response).json()));
      for (const answer of answers) expect(answer.lessons).toHaveLength(1);
      // Each saw the lesson as of its own position, before or after the save: never anything else.
      expect(answers.every((answer) => [1, 2].includes(answer.lessons[0].duration))).toBe(true);
    } finally {
      for (const remove of removes) remove();
      release.open();
      await db.end();
    }
    // The queue is free again.
    const after = await ask();
    expect(after.status).toBe(200);
    expect((await after.json()).lessons[0]).toMatchObject({ id: ids.lesson, duration: 2 });
  });
});
