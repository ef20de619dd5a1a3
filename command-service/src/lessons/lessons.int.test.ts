import { randomUUID } from 'node:crypto';
import type { SessionUser } from '@agency/contracts';
import { engagement, timesheet } from '@agency/domain';
import { startTestProduct, TEST_ADMIN, type TestProduct } from '@agency/scripts/testing/test-product';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const contact = {
  firstName: 'Jane',
  lastName: 'Smith',
  address: ['2 Mill Lane', '', 'Oxford', ''],
  postcode: 'OX2 6AA',
  email: 'jane.smith@example.com',
  phone: [
    { type: 'Mobile', number: '07700 900001' },
    { type: 'Home', number: '' },
  ],
};

type Cell = { date: string; id?: string; duration: number; amount: number; locked: boolean; open: boolean };
type Grid = {
  dates: string[];
  students: { engagementId: string; studentName: string; rate: number; lessons: Cell[] }[];
};

describe('lessons: the timesheet and the month view (real PostgreSQL)', () => {
  let product: TestProduct;
  let db: pg.Pool;
  let admin: string;
  let tutorA: { id: string; token: string };
  let tutorB: { id: string; token: string };
  let partner: { id: string; token: string };
  /** Tutor A teaches Amy (rates change on 15 March) and Ben; tutor B teaches Cat. */
  const engagements = { amy: randomUUID(), ben: randomUUID(), cat: randomUUID() };

  const post = (url: string, payload: object, token = admin) =>
    product.command.app.inject({ method: 'POST', url, payload, headers: { authorization: `Bearer ${token}` } });
  const get = async (url: string, token = admin) => {
    const response = await fetch(`${product.url}${url}`, { headers: { authorization: `Bearer ${token}` } });
    return { status: response.status, body: await response.json() };
  };
  const countEvents = async () => Number((await db.query('select count(*) from es.events')).rows[0].count);
  const lesson = (tutorId: string, lesson: object, token: string, query = '') =>
    post(`/api/lessons/lesson${query}`, { commandId: randomUUID(), tutorId, lesson }, token);

  async function newTutor(first: string, last: string, role: 'tutor' | 'partner' = 'tutor') {
    const username = `${first}.${last}`.toLowerCase();
    const made = await post('/api/tutors/contact', {
      commandId: randomUUID(),
      contact: { ...contact, firstName: first, lastName: last, email: `${username}@example.com` },
      tutor: { username, invoicePrefix: last.slice(0, 3).toUpperCase() },
    });
    expect(made.statusCode).toBe(200);
    const id = made.json().tutor.id as string;
    const account = await post('/api/users', {
      username: `${username}.login`,
      password: 'lesson-password',
      role,
      tutorId: id,
      name: `${first} ${last}`,
    });
    expect(account.statusCode).toBe(200);
    return { id, token: await product.login(`${username}.login`, 'lesson-password') };
  }

  async function newChild(first: string, last: string) {
    const client = await post('/api/clients/contact', { ...contact, lastName: last, commandId: randomUUID() });
    expect(client.statusCode).toBe(200);
    const child = await post(`/api/clients/child/${client.json().client.id}`, {
      firstName: first,
      lastName: last,
      dob: '2014-05-01',
    });
    expect(child.statusCode).toBe(200);
    return child.json().child.id as string;
  }

  /** Engagement commands straight through the pipeline as the admin (their routes are another area's). */
  async function onEngagement(engagementId: string, command: engagement.EngagementCommand) {
    const adminUser: SessionUser = { id: 'admin-test', username: 'admin', role: 'admin' };
    const { context, appendedUpTo } = product.command.actAs(adminUser, randomUUID());
    await context.run(engagement.engagementStream(engagementId), engagement.engagementDecider, command);
    const position = appendedUpTo();
    if (position) await product.command.deps.projections.waitFor(position);
  }

  const start = (engagementId: string, tutorId: string, studentId: string, ratePence: number, startDate: string) =>
    onEngagement(engagementId, {
      type: 'StartEngagement',
      engagementId,
      tutorId,
      studentId,
      startDate,
      subjects: ['Maths'],
      otherOngoingWithSameStudent: false,
      ratePence,
      commissionBp: 2500,
      partnerBp: 1000,
    });

  beforeAll(async () => {
    product = await startTestProduct();
    db = new pg.Pool({ connectionString: product.databaseUrl });
    admin = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
    tutorA = await newTutor('Alice', 'Archer');
    tutorB = await newTutor('Bob', 'Baker');
    partner = await newTutor('Pat', 'Partner', 'partner');
    const [amy, ben, cat] = await Promise.all([
      newChild('Amy', 'Adams'),
      newChild('Ben', 'Brown'),
      newChild('Cat', 'Cole'),
    ]);
    await start(engagements.amy, tutorA.id, amy, 4000, '2025-01-06');
    await onEngagement(engagements.amy, {
      type: 'ChangeRates',
      from: '2025-03-15',
      ratePence: 4500,
      commissionBp: 2000,
      partnerBp: 1000,
    });
    await start(engagements.ben, tutorA.id, ben, 3333, '2025-03-05');
    await start(engagements.cat, tutorB.id, cat, 5000, '2025-01-01');
  }, 120_000);
  afterAll(async () => {
    await db?.end();
    await product?.dispose();
  });

  it('prices each lesson with the engagement period in force on its date, and answers the week', async () => {
    const before = await lesson(
      tutorA.id,
      { engagementId: engagements.amy, date: '2025-03-10', duration: 1.5 },
      tutorA.token,
      '?from=2025-03-10&to=2025-03-16&month=2025-03',
    );
    expect(before.statusCode).toBe(200);
    const grid = before.json() as Grid & { lesson: { id: string; amount: number } };
    expect(grid.lesson).toMatchObject({ date: '2025-03-10', duration: 1.5, amount: 60 });
    expect(grid.dates).toEqual([
      '2025-03-10',
      '2025-03-11',
      '2025-03-12',
      '2025-03-13',
      '2025-03-14',
      '2025-03-15',
      '2025-03-16',
    ]);
    expect(grid.students.map((row) => row.studentName)).toEqual(['Amy Adams', 'Ben Brown']);
    expect(grid.students[0].rate).toBe(45);
    expect(grid.students[0].lessons[0]).toMatchObject({ id: grid.lesson.id, duration: 1.5, amount: 60, locked: false });

    // The first day of the new rates: £45 at 20 %, partner share 10 % of the commission.
    const after = await lesson(tutorA.id, { engagementId: engagements.amy, date: '2025-03-17' }, tutorA.token);
    expect(after.statusCode).toBe(200);
    expect(after.json().lesson).toMatchObject({ duration: 1, amount: 45 });
    // £33.33 × 0.33 h = £10.9989 → £11.00, half-up per lesson.
    expect(
      (
        await lesson(tutorA.id, { engagementId: engagements.ben, date: '2025-03-12', duration: 0.33 }, tutorA.token)
      ).json().lesson.amount,
    ).toBe(11);

    const month = await get(`/api/lessons?year=2025&month=3&tutorId=${tutorA.id}`);
    expect(month.status).toBe(200);
    expect(month.body.lessons).toEqual([
      expect.objectContaining({
        date: '2025-03-10',
        tutor: 'Alice Archer',
        tutorId: tutorA.id,
        student: 'Amy Adams',
        engagementId: engagements.amy,
        duration: 1.5,
        rate: 40,
        amount: 60,
        commission: 15,
        partnerCommission: 1.5,
        locked: false,
      }),
      expect.objectContaining({ date: '2025-03-12', student: 'Ben Brown', amount: 11, commission: 2.75 }),
      expect.objectContaining({ date: '2025-03-17', rate: 45, amount: 45, commission: 9, partnerCommission: 0.9 }),
    ]);
    // 1.5 + 0.28 (£2.75 × 10 % = 27.5p → 28p) + 0.9.
    expect(month.body.totals).toEqual({ amount: 116, commission: 26.75, partnerCommission: 2.68 });
    // The tutor's own view: the same lessons, without the Partner Share (staff only).
    const own = await get(`/api/lessons?year=2025&month=3&tutorId=${tutorA.id}`, tutorA.token);
    expect(own.body.lessons).toEqual(
      month.body.lessons.map(({ partnerCommission: _, ...lesson }: { partnerCommission: number }) => lesson),
    );
    expect(own.body.totals).toEqual({ amount: 116, commission: 26.75 });
    expect(own.body.canAddLessons).toBe(true);

    const week = await get(`/api/lessons/timesheet?from=2025-03-10&to=2025-03-16&month=2025-03`, tutorA.token);
    expect(week.status).toBe(200);
    expect({ dates: week.body.dates, students: week.body.students }).toEqual({
      dates: grid.dates,
      students: (
        await lesson(
          tutorA.id,
          { id: grid.lesson.id, engagementId: engagements.amy, date: '2025-03-10', duration: 1.5 },
          tutorA.token,
          '?from=2025-03-10&to=2025-03-16&month=2025-03',
        )
      ).json().students,
    });
  });

  it('keeps an amount typed directly until the duration changes; a duration of 0 removes the lesson', async () => {
    const typed = await lesson(
      tutorA.id,
      { engagementId: engagements.amy, date: '2025-03-03', duration: 1, amount: '52.50' },
      admin,
    );
    expect(typed.statusCode).toBe(200);
    const { id } = typed.json().lesson;
    expect(typed.json().lesson.amount).toBe(52.5);
    const resaved = await lesson(
      tutorA.id,
      { id, engagementId: engagements.amy, date: '2025-03-03', duration: 1 },
      admin,
    );
    expect(resaved.json().lesson.amount).toBe(52.5);
    const longer = await lesson(
      tutorA.id,
      { id, engagementId: engagements.amy, date: '2025-03-03', duration: 2 },
      admin,
    );
    expect(longer.json().lesson.amount).toBe(80);
    const removed = await lesson(
      tutorA.id,
      { id, engagementId: engagements.amy, date: '2025-03-03', duration: 0 },
      admin,
    );
    expect(removed.statusCode).toBe(200);
    expect(removed.json().lesson).toBeNull();
    const month = await get(`/api/lessons?year=2025&month=3&tutorId=${tutorA.id}`);
    expect(month.body.lessons.map((l: { date: string }) => l.date)).not.toContain('2025-03-03');
  });

  it('refuses bad lessons with a clear message and writes nothing', async () => {
    const before = await countEvents();
    const outside = await lesson(tutorA.id, { engagementId: engagements.ben, date: '2025-03-04' }, tutorA.token);
    expect(outside.statusCode).toBe(400);
    expect(outside.json().error.message).toBe(
      'There is no engagement with this student on 2025-03-04: it runs from 2025-03-05.',
    );
    const long = await lesson(
      tutorA.id,
      { engagementId: engagements.amy, date: '2025-03-20', duration: 12.5 },
      tutorA.token,
    );
    expect(long.statusCode).toBe(400);
    expect(long.json().error.message).toBe('No more than 12 hours of lessons a day with one student.');
    const negative = await lesson(
      tutorA.id,
      { engagementId: engagements.amy, date: '2025-03-20', duration: -1 },
      tutorA.token,
    );
    expect(negative.statusCode).toBe(400);
    expect(negative.json().error.fields).toEqual({ 'lesson.duration': 'Duration cannot be negative' });
    const notNumber = await lesson(
      tutorA.id,
      { engagementId: engagements.amy, date: '2025-03-20', duration: 'an hour' },
      tutorA.token,
    );
    expect(notNumber.statusCode).toBe(400);
    const otherTutor = await lesson(tutorB.id, { engagementId: engagements.cat, date: '2025-03-20' }, tutorA.token);
    expect(otherTutor.statusCode).toBe(403);
    expect(otherTutor.json().error.message).toBe('A tutor can record lessons only on their own timesheet.');
    const partnerOther = await lesson(tutorB.id, { engagementId: engagements.cat, date: '2025-03-20' }, partner.token);
    expect(partnerOther.statusCode).toBe(403);
    expect(partnerOther.json().error.message).toBe('A partner can record lessons only for their own tutor.');
    const notTheirs = await lesson(tutorA.id, { engagementId: engagements.cat, date: '2025-03-20' }, admin);
    expect(notTheirs.statusCode).toBe(400);
    const unknown = await lesson(tutorA.id, { engagementId: randomUUID(), date: '2025-03-20' }, admin);
    expect(unknown.statusCode).toBe(404);
    const missing = await post('/api/lessons/lesson', { tutorId: tutorA.id, lesson: { date: '2025-03-20' } }, admin);
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error.fields).toMatchObject({ 'lesson.engagementId': 'Student is required' });
    expect(await countEvents()).toBe(before);
  });

  it('scopes the month list by role: a tutor sees only their own, staff see all or one tutor', async () => {
    expect(
      (await lesson(tutorB.id, { engagementId: engagements.cat, date: '2025-03-21' }, tutorB.token)).statusCode,
    ).toBe(200);
    const own = await get('/api/lessons?year=2025&month=3', tutorB.token);
    expect(own.body.lessons.map((l: { tutorId: string }) => l.tutorId)).toEqual([tutorB.id]);
    expect(own.body.canAddLessons).toBe(true);
    expect((await get(`/api/lessons?year=2025&month=3&tutorId=${tutorA.id}`, tutorB.token)).status).toBe(403);
    expect(
      (
        await get(
          `/api/lessons/timesheet?from=2025-03-17&to=2025-03-23&month=2025-03&tutorId=${tutorA.id}`,
          tutorB.token,
        )
      ).status,
    ).toBe(403);

    const all = await get('/api/lessons?year=2025&month=3');
    expect(new Set(all.body.lessons.map((l: { tutorId: string }) => l.tutorId))).toEqual(
      new Set([tutorA.id, tutorB.id]),
    );
    expect(all.body.canAddLessons).toBe(false);
    expect((await get(`/api/lessons?year=2025&month=3&tutorId=${tutorB.id}`)).body.canAddLessons).toBe(true);

    const partnerAll = await get('/api/lessons?year=2025&month=3', partner.token);
    expect(partnerAll.body.lessons.length).toBe(all.body.lessons.length);
    expect(partnerAll.body.canAddLessons).toBe(false);
    expect((await get(`/api/lessons?year=2025&month=3&tutorId=${tutorB.id}`, partner.token)).body.canAddLessons).toBe(
      false,
    );
    expect((await get(`/api/lessons?year=2025&month=3&tutorId=${partner.id}`, partner.token)).body.canAddLessons).toBe(
      true,
    );

    expect((await get('/api/lessons?year=2025&month=13')).status).toBe(400);
    expect((await get('/api/lessons/timesheet?from=x&to=2025-03-23&month=2025-03&tutorId=a')).status).toBe(400);
  });

  it('refuses any change to a locked (invoiced) month with 409, and the views show it locked', async () => {
    expect(
      (await lesson(tutorB.id, { engagementId: engagements.cat, date: '2025-02-03' }, tutorB.token)).statusCode,
    ).toBe(200);
    const adminUser: SessionUser = { id: 'admin-test', username: 'admin', role: 'admin' };
    const { context, appendedUpTo } = product.command.actAs(adminUser, randomUUID());
    await context.run(timesheet.timesheetStream(tutorB.id, '2025-02'), timesheet.timesheetDecider, {
      type: 'LockMonth',
      tutorId: tutorB.id,
      month: '2025-02',
      invoiceId: 'invoice-1',
    });
    await product.command.deps.projections.waitFor(appendedUpTo()!);

    const before = await countEvents();
    const refused = await lesson(tutorB.id, { engagementId: engagements.cat, date: '2025-02-04' }, admin);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.message).toBe('The lessons of February 2025 are locked: the month has been invoiced.');
    const existing = (await get('/api/lessons?year=2025&month=2', tutorB.token)).body;
    expect(existing.lessons).toEqual([expect.objectContaining({ date: '2025-02-03', locked: true })]);
    expect(existing.canAddLessons).toBe(false);
    const change = await lesson(
      tutorB.id,
      { id: existing.lessons[0].id, engagementId: engagements.cat, date: '2025-02-03', duration: 0 },
      tutorB.token,
    );
    expect(change.statusCode).toBe(409);
    expect(await countEvents()).toBe(before);
    const week = await get('/api/lessons/timesheet?from=2025-02-03&to=2025-02-09&month=2025-02', tutorB.token);
    expect(week.body.students[0].lessons.every((cell: Cell) => cell.locked)).toBe(true);
  });

  it('two people recording on one tutor-month at once both land: the loser of the race decides again', async () => {
    for (let day = 1; day <= 10; day++) {
      const date = `2025-05-${String(day).padStart(2, '0')}`;
      const pair = await Promise.all([
        lesson(tutorA.id, { engagementId: engagements.amy, date }, tutorA.token),
        lesson(tutorA.id, { engagementId: engagements.ben, date }, admin),
      ]);
      expect(pair.map((response) => response.statusCode)).toEqual([200, 200]);
    }
    const month = await get(`/api/lessons?year=2025&month=5&tutorId=${tutorA.id}`);
    expect(month.body.lessons).toHaveLength(20);
  });

  it('never loses an update when many people record on one tutor-month at once', async () => {
    const dates = Array.from({ length: 12 }, (_, i) => `2025-04-${String(i + 1).padStart(2, '0')}`);
    const writers = dates.flatMap((date) => [
      { engagementId: engagements.amy, date, token: tutorA.token },
      { engagementId: engagements.ben, date, token: admin },
    ]);
    const save = (w: (typeof writers)[number]) =>
      lesson(tutorA.id, { engagementId: w.engagementId, date: w.date }, w.token);
    const statuses = (await Promise.all(writers.map(save))).map((response) => response.statusCode);
    // Each lands, or — once the pipeline's retries on fresh state are spent — gets a 409, which
    // the user resolves by reloading the cell and saving again.
    for (const status of statuses) expect([200, 409]).toContain(status);
    for (let round = 0; round < 5 && statuses.includes(409); round++) {
      const again = await Promise.all(writers.map((w, i) => (statuses[i] === 409 ? save(w) : undefined)));
      again.forEach((response, i) => {
        if (response) statuses[i] = response.statusCode;
      });
    }
    expect(statuses).toEqual(writers.map(() => 200));
    const month = await get(`/api/lessons?year=2025&month=4&tutorId=${tutorA.id}`);
    expect(month.body.lessons).toHaveLength(writers.length);
    expect(month.body.totals.amount).toBe(939.96);

    // Two people type into the same empty cell at once: one lands, the other is told to reload.
    const same = await Promise.all([
      lesson(tutorA.id, { engagementId: engagements.amy, date: '2025-04-20', duration: 2 }, tutorA.token),
      lesson(tutorA.id, { engagementId: engagements.amy, date: '2025-04-20', duration: 3 }, admin),
    ]);
    expect(same.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    const winner = same.find((r) => r.statusCode === 200)!.json().lesson.duration;
    const cell = (await get(`/api/lessons/timesheet?from=2025-04-14&to=2025-04-20&month=2025-04&tutorId=${tutorA.id}`))
      .body.students[0].lessons[6];
    expect(cell).toMatchObject({ date: '2025-04-20', duration: winner });
  });
});
