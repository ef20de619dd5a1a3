import { randomUUID } from 'node:crypto';
import type { SessionUser } from '@agency/contracts';
import { engagement } from '@agency/domain';
import { startTestProduct, TEST_ADMIN, type TestProduct } from '@agency/scripts/testing/test-product';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Hostile inputs, through the real routes on real PostgreSQL: each is a 4xx,
 * stores nothing, and the product goes on (a normal lesson afterwards is saved and visible).
 * Then events already in a store from before the limits (a 3,000,000,000-pence lesson) are
 * projected into bigint columns, and their sums past 2^31 come out exact.
 */
const contact = {
  firstName: 'Lia',
  lastName: 'Limit',
  address: ['1 Edge Road'],
  postcode: 'OX1 1AA',
  email: 'lia.limit@example.com',
  phone: [{ type: 'Mobile', number: '07700 900002' }],
};

describe('limits: hostile input is refused at the door and stored events stay projectable', () => {
  let product: TestProduct;
  let db: pg.Pool;
  let admin: string;
  let tutorId: string;
  const engagementId = randomUUID();

  const post = (url: string, payload: unknown, token = admin) =>
    product.command.app.inject({
      method: 'POST',
      url,
      payload: payload as object,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    });
  const countEvents = async () => Number((await db.query('select count(*) from es.events')).rows[0].count);
  const lesson = (fields: object) =>
    post('/api/lessons/lesson', {
      commandId: randomUUID(),
      tutorId,
      lesson: { engagementId, date: '2026-03-02', duration: 1, ...fields },
    });

  beforeAll(async () => {
    product = await startTestProduct();
    db = new pg.Pool({ connectionString: product.databaseUrl });
    admin = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
    const made = await post('/api/tutors/contact', {
      commandId: randomUUID(),
      contact,
      tutor: { username: 'lia.limit', invoicePrefix: 'LL', startDate: '2025-01-01' },
    });
    expect(made.statusCode, made.body).toBe(200);
    tutorId = made.json().tutor.id;
    const client = await post('/api/clients/contact', { ...contact, commandId: randomUUID() });
    expect(client.statusCode, client.body).toBe(200);
    const child = await post(`/api/clients/child/${client.json().client.id}`, {
      firstName: 'Kit',
      lastName: 'Limit',
      dob: '2014-05-01',
    });
    expect(child.statusCode, child.body).toBe(200);
    const adminUser: SessionUser = { id: 'admin-test', username: 'admin', role: 'admin' };
    const { context, appendedUpTo } = product.command.actAs(adminUser, randomUUID());
    await context.run(engagement.engagementStream(engagementId), engagement.engagementDecider, {
      type: 'StartEngagement',
      engagementId,
      tutorId,
      studentId: child.json().child.id,
      startDate: '2025-01-06',
      subjects: ['Maths'],
      otherOngoingWithSameStudent: false,
      ratePence: 4000,
      commissionBp: 2500,
      partnerBp: 1000,
    });
    const position = appendedUpTo();
    if (position) await product.command.deps.projections.waitFor(position);
  }, 120_000);

  afterAll(async () => {
    await db?.end();
    await product?.dispose();
  });

  it('refuses each hostile input with a 4xx and a field message, storing nothing', async () => {
    const before = await countEvents();
    const cases: { response: Awaited<ReturnType<typeof post>>; status: number; field?: string; message: RegExp }[] = [
      { response: await lesson({ amount: 30_000_000 }), status: 400, field: 'lesson.amount', message: /£100,000/ },
      { response: await lesson({ date: '0000-01-01' }), status: 400, field: 'lesson.date', message: /1900-01-01/ },
      {
        response: await lesson({ duration: '1'.repeat(40_000) }),
        status: 400,
        field: 'lesson.duration',
        message: /32 characters/,
      },
      { response: await lesson({ duration: 25 }), status: 400, field: 'lesson.duration', message: /24 hours/ },
      {
        response: await post('/api/tutors/engagement', {
          commandId: randomUUID(),
          tutorId,
          studentId: 'someone',
          rate: 1e12,
          commissionPct: 25,
          partnerPct: 10,
          startDate: '2026-01-05',
          subjects: ['Maths'],
        }),
        status: 400,
        field: 'rate',
        message: /£10,000/,
      },
      {
        response: await post('/api/clients/contact', {
          ...contact,
          commandId: randomUUID(),
          firstName: 'x'.repeat(60_000),
        }),
        status: 400,
        field: 'firstName',
        message: /Too long/,
      },
      {
        response: await post('/auth/local', { username: 'admin', password: 'p'.repeat(60_000) }),
        status: 400,
        message: /./,
      },
    ];
    for (const { response, status, field, message } of cases) {
      expect(response.statusCode, response.body).toBe(status);
      const { error } = response.json();
      expect(error.code).toBe('invalid_input');
      if (field) expect(error.fields?.[field], response.body).toMatch(message);
    }
    expect(await countEvents()).toBe(before);
  });

  it('refuses a body over 64 KiB (a megabyte string field) with 413 and the usual error body', async () => {
    const before = await countEvents();
    for (const payload of [
      { ...contact, commandId: randomUUID(), firstName: 'x'.repeat(1024 * 1024) },
      { ...contact, commandId: randomUUID(), address: ['y'.repeat(65_537)] },
    ]) {
      const response = await post('/api/clients/contact', payload);
      expect(response.statusCode).toBe(413);
      expect(response.json()).toEqual({
        error: { code: 'payload_too_large', message: 'The request is too large (64 KiB at most).' },
      });
    }
    expect(await countEvents()).toBe(before);
  });

  it('goes on after them: a normal lesson is saved and the read models move', async () => {
    const saved = await lesson({ date: '2026-03-03', duration: 1.5 });
    expect(saved.statusCode, saved.body).toBe(200);
    const response = await fetch(`${product.url}/api/lessons?year=2026&month=3&tutorId=${tutorId}`, {
      headers: { authorization: `Bearer ${admin}` },
    });
    const { lessons } = await response.json();
    expect(lessons).toEqual([expect.objectContaining({ date: '2026-03-03', amount: 60 })]);
  });

  it('projects lessons stored before the limits (3,000,000,000 pence each) into bigint columns, sums exact', async () => {
    const month = '2024-07';
    const big = (n: number) => ({
      lessonId: `legacy-${n}`,
      engagementId,
      studentId: 'legacy-student',
      date: `${month}-0${n}`,
      duration: 100,
      ratePence: 3_000_000_000,
      amountPence: 3_000_000_000,
      amountEdited: true,
      commissionBp: 2500,
      commissionPence: 750_000_000,
      partnerBp: 1000,
      partnerCommissionPence: 75_000_000,
    });
    const metadata = { userId: 'legacy', role: 'admin', commandId: randomUUID(), correlationId: 'c', causationId: 'c' };
    const appended = await product.command.deps.store.appendToStream(
      `timesheet-${tutorId}-${month}`,
      [1, 2, 3].map((n) => ({
        type: 'LessonRecorded',
        data: { tutorId, month, lesson: big(n) },
        metadata: { ...metadata, schemaVersion: 1 },
      })),
      { expectedRevision: 'no_stream' },
    );
    await product.command.deps.projections.waitFor(appended.position);

    const stored = await db.query(
      'select sum(amount_pence)::text as amount, sum(commission_pence)::text as commission from read.lessons where month = $1',
      [month],
    );
    expect(stored.rows[0]).toEqual({ amount: '9000000000', commission: '2250000000' });

    const response = await fetch(`${product.url}/api/lessons?year=2024&month=7&tutorId=${tutorId}`, {
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.lessons.map((row: { amount: number }) => row.amount)).toEqual([30_000_000, 30_000_000, 30_000_000]);
    expect(body.totals).toMatchObject({ amount: 90_000_000, commission: 22_500_000, partnerCommission: 2_250_000 });

    const report = await fetch(`${product.url}/api/reports/invoiceStatus?year=2024&month=7`, {
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(report.status).toBe(200);
    const groups = (await report.json()).groups as {
      tutors: { tutorId: string; earnings: number; commission: number }[];
    }[];
    const row = groups.flatMap((group) => group.tutors).find((tutor) => tutor.tutorId === tutorId);
    expect(row).toMatchObject({ earnings: 90_000_000, commission: 22_500_000 });
  });
});
