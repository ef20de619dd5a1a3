import { randomUUID } from 'node:crypto';
import { startTestProduct, TEST_ADMIN, type TestProduct } from '@agency/scripts/testing/test-product';
import { contact, testRequests } from '@agency/scripts/testing/test-requests';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

type Json = Record<string, unknown>;
type HistoryRow = {
  rate: number;
  commissionRate: number;
  partnerRate: number;
  subjects: string[];
  startDate: string;
  endDate: string | null;
  latest: boolean;
};

describe('engagements: commands, history periods, queries and the rules they complete', () => {
  let product: TestProduct;
  let db: pg.Pool;
  let admin: string;
  let tutorA: string;
  let tutorB: string;
  let tutorAToken: string;
  let partnerToken: string;
  const family: Record<string, { clientId: string; children: string[] }> = {};

  const post = (url: string, payload: Json, token = admin) =>
    product.command.app.inject({
      method: 'POST',
      url,
      payload,
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
  const { ok, get } = testRequests(
    () => product,
    () => admin,
  );
  const countEvents = async () => Number((await db.query('select count(*) from es.events')).rows[0].count);
  const engage = (payload: Json) => post('/api/tutors/engagement', { commandId: randomUUID(), ...payload });

  const newTutor = async (first: string, last: string) => {
    const { tutor } = await ok('/api/tutors/contact', {
      contact: contact(first, last),
      tutor: {
        username: `${first}${last}`.toLowerCase(),
        invoicePrefix: `${first[0]}${last[0]}`,
        startDate: '2023-09-01',
      },
    });
    return tutor.id as string;
  };
  const newFamily = async (surname: string, children: string[]) => {
    const { client } = await ok('/api/clients/contact', contact('Parent', surname));
    const ids: string[] = [];
    for (const first of children) {
      const { child } = await ok(`/api/clients/child/${client.id}`, {
        firstName: first,
        lastName: surname,
        dob: '2012-05-01',
      });
      ids.push(child.id);
    }
    family[surname] = { clientId: client.id, children: ids };
  };

  beforeAll(async () => {
    product = await startTestProduct();
    db = new pg.Pool({ connectionString: product.databaseUrl });
    admin = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
    tutorA = await newTutor('Ada', 'Lovelace');
    tutorB = await newTutor('Brook', 'Taylor');
    await newFamily('Archer', ['Amy', 'Alfie']);
    await newFamily('Brown', ['Bea']);
    await newFamily('Carter', ['Cal', 'Cora', 'Cyd']);
    await ok('/api/users', {
      username: 'ada',
      password: 'ada-password-1',
      role: 'tutor',
      tutorId: tutorA,
      name: 'Ada',
    });
    await ok('/api/users', {
      username: 'brook',
      password: 'brook-password-1',
      role: 'partner',
      tutorId: tutorB,
      name: 'Brook',
    });
    tutorAToken = await product.login('ada', 'ada-password-1');
    partnerToken = await product.login('brook', 'brook-password-1');
  });
  afterAll(async () => {
    await db?.end();
    await product?.dispose();
  });

  it('refuses bad input with 400 and the spec messages, writing nothing', async () => {
    const before = await countEvents();
    const student = family.Archer!.children[0];
    const blank = await engage({ tutorId: tutorA, studentId: student, rate: '', startDate: '2024-01-01' });
    expect(blank.statusCode).toBe(400);
    expect(blank.json().error.fields.rate).toBe('Rate is required');

    const negative = await engage({ tutorId: tutorA, studentId: student, rate: -5, startDate: '2024-01-01' });
    expect(negative.statusCode).toBe(400);
    expect(negative.json().error.fields.rate).toBe('Rate cannot be negative');

    const words = await engage({ tutorId: tutorA, studentId: student, rate: 'lots', startDate: '2024-01-01' });
    expect(words.json().error.fields.rate).toBe('Rate must be a number');

    const percent = await engage({
      tutorId: tutorA,
      studentId: student,
      rate: 30,
      commissionPct: 101,
      partnerPct: -1,
      startDate: '2024-01-01',
    });
    expect(percent.statusCode).toBe(400);
    expect(percent.json().error.fields).toMatchObject({
      commissionPct: 'Commission % must be between 0 and 100',
      partnerPct: 'Partner % must be between 0 and 100',
    });

    const noStudent = await engage({ tutorId: tutorA, rate: 30, startDate: '2024-01-01' });
    expect(noStudent.json().error.fields.studentId).toBe('Student is required');
    const badSubject = await engage({
      tutorId: tutorA,
      studentId: student,
      rate: 30,
      startDate: '2024-01-01',
      subjects: ['Astrology'],
    });
    expect(badSubject.statusCode).toBe(400);
    expect(await countEvents()).toBe(before);
  });

  it('answers 404 for an unknown tutor or student and 403 for anyone but an admin', async () => {
    const student = family.Archer!.children[0];
    const unknownTutor = await engage({ tutorId: 'nobody', studentId: student, rate: 30, startDate: '2024-01-01' });
    expect(unknownTutor.statusCode).toBe(404);
    expect(unknownTutor.json().error.message).toBe('There is no such tutor.');
    const unknownChild = await engage({ tutorId: tutorA, studentId: 'nobody', rate: 30, startDate: '2024-01-01' });
    expect(unknownChild.statusCode).toBe(404);
    expect(unknownChild.json().error.message).toBe('There is no such student.');
    for (const token of [tutorAToken, partnerToken]) {
      const response = await post(
        '/api/tutors/engagement',
        { tutorId: tutorA, studentId: student, rate: 30, startDate: '2024-01-01' },
        token,
      );
      expect(response.statusCode).toBe(403);
    }
  });

  let amy: string;

  it('starts an engagement (missing percentages are 0) and refuses a second ongoing one with the same student', async () => {
    const studentId = family.Archer!.children[0]!;
    const answer = await ok('/api/tutors/engagement', {
      tutorId: tutorA,
      studentId,
      rate: '30.00',
      startDate: '2024-01-01',
      subjects: ['Maths', 'Physics', 'Maths'],
    });
    amy = answer.engagement.id;
    expect(answer.position).toEqual(expect.any(String));
    expect(answer.engagement).toMatchObject({
      tutor: { id: tutorA, name: 'Ada Lovelace' },
      studentName: 'Amy Archer',
      rate: 30,
      commissionRate: 0,
      partnerRate: 0,
      startDate: '2024-01-01',
      subjects: ['Maths', 'Physics'],
    });
    expect(answer.engagement).not.toHaveProperty('endDate');

    const again = await engage({ tutorId: tutorA, studentId, rate: 40, startDate: '2024-02-01' });
    expect(again.statusCode).toBe(409);
    expect(again.json().error.message).toBe('This tutor already has an ongoing engagement with this student.');
    // Another tutor may teach the same child.
    await ok('/api/tutors/engagement', { tutorId: tutorB, studentId, rate: 25, startDate: '2024-01-01' });
  });

  it('changes rates from a date: the period in force closes the day before; refuses a change before the start', async () => {
    const early = await engage({
      id: amy,
      tutorId: tutorA,
      change: 'rates',
      rate: 35,
      commissionPct: 20,
      partnerPct: 10,
      startDate: '2023-12-01',
    });
    expect(early.statusCode).toBe(400);
    expect(early.json().error.message).toBe('A change cannot take effect before the engagement started on 2024-01-01.');

    await ok('/api/tutors/engagement', {
      id: amy,
      tutorId: tutorA,
      change: 'rates',
      rate: 35.5,
      commissionPct: 20,
      partnerPct: 12.5,
      startDate: '2024-03-01',
      subjects: ['Maths', 'Physics'],
    });
    const { status, body } = await get(`/api/tutors/engagement/${tutorA}/${amy}`);
    expect(status).toBe(200);
    expect(body.engagement).toMatchObject({
      id: amy,
      tutor: { id: tutorA, name: 'Ada Lovelace' },
      studentName: 'Amy Archer',
      firstName: 'Amy',
      lastName: 'Archer',
      rate: 35.5,
      commissionRate: 0.2,
      partnerRate: 0.125,
      commissionPct: 20,
      partnerPct: 12.5,
      startDate: '2024-01-01',
      subjects: ['Maths', 'Physics'],
    });
    expect(body.engagement).not.toHaveProperty('endDate');
    expect(body.engagement.history as HistoryRow[]).toEqual([
      {
        rate: 35.5,
        commissionRate: 0.2,
        partnerRate: 0.125,
        subjects: ['Maths', 'Physics'],
        startDate: '2024-03-01',
        endDate: null,
        latest: true,
      },
      {
        rate: 30,
        commissionRate: 0,
        partnerRate: 0,
        subjects: ['Maths', 'Physics'],
        startDate: '2024-01-01',
        endDate: '2024-02-29',
        latest: false,
      },
    ]);
  });

  it('answers which period was in force on a date', async () => {
    const before = await get(`/api/tutors/engagement/${tutorA}/${amy}/on/2024-02-29`);
    expect(before.body.period).toMatchObject({ rate: 30, startDate: '2024-01-01', endDate: '2024-02-29' });
    const after = await get(`/api/tutors/engagement/${tutorA}/${amy}/on/2024-03-01`);
    expect(after.body.period).toMatchObject({
      rate: 35.5,
      commissionRate: 0.2,
      startDate: '2024-03-01',
      endDate: null,
    });
    const outside = await get(`/api/tutors/engagement/${tutorA}/${amy}/on/2023-12-31`);
    expect(outside.status).toBe(404);
    expect(outside.body.error.message).toBe('The engagement was not in force on 2023-12-31.');
    expect((await get(`/api/tutors/engagement/${tutorA}/${amy}/on/March`)).status).toBe(400);
  });

  it('infers subjects and rates from the body, and corrects a past period from the history', async () => {
    await ok('/api/tutors/engagement', {
      id: amy,
      tutorId: tutorA,
      rate: 35.5,
      commissionPct: 20,
      partnerPct: 12.5,
      startDate: '2024-04-01',
      subjects: ['Maths'],
    });
    await ok('/api/tutors/engagement', {
      id: amy,
      tutorId: tutorA,
      change: 'correction',
      periodStart: '2024-01-01',
      rate: 31,
      commissionPct: 15,
      partnerPct: 0,
      startDate: '2024-01-08',
      subjects: ['Maths', 'Physics'],
    });
    const { body } = await get(`/api/tutors/engagement/${tutorA}/${amy}`);
    const rows = body.engagement.history as HistoryRow[];
    expect(rows.map((row) => [row.startDate, row.endDate, row.rate, row.subjects.join('+'), row.latest])).toEqual([
      ['2024-04-01', null, 35.5, 'Maths', true],
      ['2024-03-01', '2024-03-31', 35.5, 'Maths+Physics', false],
      ['2024-01-08', '2024-02-29', 31, 'Maths+Physics', false],
    ]);
    expect(body.engagement.startDate).toBe('2024-01-08');

    const overlap = await engage({
      id: amy,
      tutorId: tutorA,
      change: 'correction',
      periodStart: '2024-03-01',
      rate: 35.5,
      startDate: '2024-01-08',
    });
    expect(overlap.statusCode).toBe(400);
    expect(overlap.json().error.message).toBe(
      'This period must start after the period before it, which starts on 2024-01-08.',
    );
    const earlier = await engage({ id: amy, tutorId: tutorA, change: 'rates', rate: 50, startDate: '2024-03-15' });
    expect(earlier.statusCode).toBe(400);
    expect(earlier.json().error.message).toMatch(/on or after 2024-04-01/);
  });

  it('keeps a tutor with a current student from being terminated, until the engagement ends', async () => {
    const refused = await post(`/api/tutors/active/${tutorA}`, { id: tutorA, active: false, endDate: '2024-12-31' });
    expect(refused.statusCode).toBe(409);
    const tutor = await get(`/api/tutors/${tutorA}`);
    expect(tutor.body.tutor.currentStudents).toEqual([
      {
        engagementId: amy,
        studentId: family.Archer!.children[0],
        clientId: family.Archer!.clientId,
        name: 'Amy Archer',
        startDate: '2024-01-08',
        endDate: null,
        rate: 35.5,
        subjects: ['Maths'],
      },
    ]);
    expect(tutor.body.tutor.formerStudents).toEqual([]);

    const beforeStart = await engage({
      id: amy,
      tutorId: tutorA,
      change: 'termination',
      rate: 35.5,
      startDate: '2024-04-01',
      endDate: '2024-03-31',
    });
    expect(beforeStart.statusCode).toBe(400);
    expect(beforeStart.json().error.message).toBe(
      'The engagement cannot end before its latest terms began on 2024-04-01.',
    );

    // Without `change`, an end date means termination.
    const ended = await ok('/api/tutors/engagement', {
      id: amy,
      tutorId: tutorA,
      rate: 35.5,
      startDate: '2024-04-01',
      endDate: '2024-06-30',
    });
    expect(ended.engagement.endDate).toBe('2024-06-30');
    const after = await get(`/api/tutors/${tutorA}`);
    expect(after.body.tutor.currentStudents).toEqual([]);
    expect(after.body.tutor.formerStudents).toMatchObject([
      { engagementId: amy, name: 'Amy Archer', endDate: '2024-06-30' },
    ]);
    const detail = await get(`/api/tutors/engagement/${tutorA}/${amy}`);
    expect(detail.body.engagement.endDate).toBe('2024-06-30');
    expect(detail.body.engagement.history[0]).toMatchObject({ endDate: '2024-06-30', latest: true });
  });

  it('refuses any change to a terminated engagement, and lets the same student start afresh', async () => {
    const before = await countEvents();
    const rates = await engage({ id: amy, tutorId: tutorA, change: 'rates', rate: 40, startDate: '2024-07-01' });
    expect(rates.statusCode).toBe(409);
    expect(rates.json().error.message).toBe('This engagement ended on 2024-06-30; it can no longer be changed.');
    const again = await engage({
      id: amy,
      tutorId: tutorA,
      change: 'termination',
      rate: 40,
      startDate: '2024-07-01',
      endDate: '2024-08-01',
    });
    expect(again.statusCode).toBe(409);
    const pastEnd = await engage({
      id: amy,
      tutorId: tutorA,
      change: 'correction',
      periodStart: '2024-04-01',
      rate: 35.5,
      startDate: '2024-07-15',
    });
    expect(pastEnd.statusCode).toBe(400);
    expect(pastEnd.json().error.message).toBe('A change cannot take effect after the engagement ended on 2024-06-30.');
    const wrongTutor = await engage({ id: amy, tutorId: tutorB, change: 'rates', rate: 40, startDate: '2024-07-01' });
    expect(wrongTutor.statusCode).toBe(404);
    expect(await countEvents()).toBe(before);

    await ok('/api/tutors/engagement', {
      tutorId: tutorA,
      studentId: family.Archer!.children[0],
      rate: 40,
      startDate: '2024-09-01',
    });
    // With no current student left after that one ends, the tutor may be terminated.
    const { body } = await get(`/api/tutors/${tutorA}`);
    const current = body.tutor.currentStudents[0].engagementId as string;
    await ok('/api/tutors/engagement', {
      id: current,
      tutorId: tutorA,
      change: 'termination',
      rate: 40,
      startDate: '2024-09-01',
      endDate: '2024-12-20',
    });
    await ok(`/api/tutors/active/${tutorA}`, { id: tutorA, active: false, endDate: '2024-12-31' });
    const inactive = await engage({
      tutorId: tutorA,
      studentId: family.Brown!.children[0],
      rate: 30,
      startDate: '2025-01-06',
    });
    expect(inactive.statusCode).toBe(409);
    expect(inactive.json().error.message).toBe('This tutor is inactive: reactivate the tutor before adding students.');
    await ok(`/api/tutors/active/${tutorA}`, { id: tutorA, active: true, startDate: '2025-01-01' });
    // The termination ended Ada's sessions: she signs in again.
    tutorAToken = await product.login('ada', 'ada-password-1');
  });

  it('lets a tutor read only their own engagements; staff read any', async () => {
    const own = await get(`/api/tutors/engagement/${tutorA}/${amy}`, tutorAToken);
    expect(own.status).toBe(200);
    const { body } = await get(`/api/tutors/${tutorB}`);
    const other = body.tutor.currentStudents[0].engagementId as string;
    const refused = await get(`/api/tutors/engagement/${tutorB}/${other}`, tutorAToken);
    expect(refused.status).toBe(404);
    expect((await get(`/api/tutors/engagement/${tutorB}/${other}/on/2024-02-01`, tutorAToken)).status).toBe(404);
    // The engagement id alone does not open it under another tutor's id.
    expect((await get(`/api/tutors/engagement/${tutorA}/${other}`, tutorAToken)).status).toBe(404);
    expect((await get(`/api/tutors/engagement/${tutorA}/${amy}`, partnerToken)).status).toBe(200);
  });

  it('shows a tutor exactly the families of their own students; the staff tutor filter selects by engagement', async () => {
    // Ada now teaches Cora Carter (current) and taught Amy Archer (former); Brook teaches Amy.
    await ok('/api/tutors/engagement', {
      tutorId: tutorA,
      studentId: family.Carter!.children[1],
      rate: 30,
      startDate: '2025-01-06',
    });
    const names = (clients: { name: string }[]) => clients.map((c) => c.name);
    const mine = await get('/api/clients?includeInactive=N', tutorAToken);
    expect(names(mine.body.clients)).toEqual(['Parent Carter']);
    // A tutor cannot widen the view with someone else's id.
    const widened = await get(`/api/clients?includeInactive=N&tutor=${tutorB}`, tutorAToken);
    expect(names(widened.body.clients)).toEqual(['Parent Carter']);
    // A former student's family is no longer the tutor's to read, inactive clients shown or not.
    const withFormer = await get('/api/clients?includeInactive=Y', tutorAToken);
    expect(names(withFormer.body.clients)).toEqual(['Parent Carter']);
    expect((await get(`/api/clients/${family.Archer!.clientId}`, tutorAToken)).status).toBe(404);
    expect((await get(`/api/clients/${family.Carter!.clientId}`, tutorAToken)).status).toBe(200);

    const filtered = await get(`/api/clients?includeInactive=N&tutor=${tutorB}`);
    expect(names(filtered.body.clients)).toEqual(['Parent Archer']);
    const byPartner = await get(`/api/clients?includeInactive=N&tutor=${tutorA}`, partnerToken);
    expect(names(byPartner.body.clients)).toEqual(['Parent Carter']);
    const all = await get('/api/clients?includeInactive=N');
    expect(all.body.clients.map((c: { name: string; students: number }) => [c.name, c.students])).toEqual([
      ['Parent Archer', 2],
      ['Parent Brown', 1],
      ['Parent Carter', 3],
    ]);
    // The Students column counts the family's children, not only the tutor's students.
    expect(mine.body.clients[0].students).toBe(3);
  });
});
