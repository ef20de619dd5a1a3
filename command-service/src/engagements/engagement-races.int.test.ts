import { randomUUID } from 'node:crypto';
import { startTestProduct, TEST_ADMIN, type TestProduct } from '@agency/scripts/testing/test-product';
import { contact, testRequests } from '@agency/scripts/testing/test-requests';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { onRacePoint, type RacePoint } from '../race-points';
import { putEarlierEngagementsOnRosters } from './roster';

/**
 * Holds every request that reaches `point` until the test lets it go: the test decides the order
 * in which requests that have all passed their checks make their decisive write.
 */
function holdAt(point: RacePoint) {
  const waiting: Array<() => void> = [];
  let arrivedOne: () => void = () => {};
  const remove = onRacePoint(point, () => {
    const released = new Promise<void>((resolve) => waiting.push(resolve));
    arrivedOne();
    return released;
  });
  return {
    remove,
    /** Resolves once `count` requests in all are waiting here. */
    arrived: (count: number) =>
      new Promise<void>((resolve) => {
        arrivedOne = () => {
          if (waiting.length >= count) resolve();
        };
        arrivedOne();
      }),
    /** Lets the requests go, in arrival order, one per call. */
    releaseNext: () => waiting.shift()?.(),
  };
}

describe('race-free rules between a tutor and their engagements (decided on the tutor stream)', () => {
  let product: TestProduct;
  let db: pg.Pool;
  let admin: string;
  let studentIds: string[];
  const removals: Array<() => void> = [];

  const { post, ok } = testRequests(
    () => product,
    () => admin,
  );
  let tutorCount = 0;
  const newTutor = async () => {
    tutorCount += 1;
    const { tutor } = await ok('/api/tutors/contact', {
      contact: contact('Race', `Tutor${tutorCount}`),
      tutor: { username: `racetutor${tutorCount}`, invoicePrefix: `RT${tutorCount}`, startDate: '2024-01-01' },
    });
    return tutor.id as string;
  };
  const start = (tutorId: string, studentId: string) =>
    post('/api/tutors/engagement', {
      tutorId,
      studentId,
      rate: 40,
      commissionPct: 25,
      partnerPct: 0,
      startDate: '2025-01-06',
      subjects: ['Maths'],
    });
  const terminate = (tutorId: string) =>
    post(`/api/tutors/active/${tutorId}`, { id: tutorId, active: false, endDate: '2025-01-31' });
  const startedInStore = async (tutorId: string) =>
    (
      await db.query(
        `select data->>'studentId' as student from es.events where event_type = 'EngagementStarted' and data->>'tutorId' = $1`,
        [tutorId],
      )
    ).rows.map((row) => row.student as string);
  const tutorRow = async (tutorId: string) =>
    (await db.query('select active, end_date from read.tutors where id = $1', [tutorId])).rows[0];
  const ongoingRows = async (tutorId: string) =>
    (await db.query('select student_id from read.engagements where tutor_id = $1 and end_date is null', [tutorId]))
      .rows;

  beforeAll(async () => {
    product = await startTestProduct();
    db = new pg.Pool({ connectionString: product.databaseUrl });
    admin = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
    const { client } = await ok('/api/clients/contact', contact('Parent', 'Racer'));
    studentIds = [];
    for (const first of ['Ann', 'Ben']) {
      const { child } = await ok(`/api/clients/child/${client.id}`, {
        firstName: first,
        lastName: 'Racer',
        dob: '2012-05-01',
      });
      studentIds.push(child.id);
    }
  });
  afterEach(() => {
    for (const remove of removals.splice(0)) remove();
  });
  afterAll(async () => {
    await db?.end();
    await product?.dispose();
  });

  it('two admins start the same tutor and student at once: one engagement, the other gets 409', async () => {
    const tutorId = await newTutor();
    const [ann] = studentIds;
    const hold = holdAt('engagement.start');
    removals.push(hold.remove);
    const first = start(tutorId, ann!);
    const second = start(tutorId, ann!);
    // Both have loaded the tutor and found no ongoing engagement with Ann.
    await hold.arrived(2);
    hold.releaseNext();
    hold.releaseNext();
    const answers = await Promise.all([first, second]);
    const codes = answers.map((answer) => answer.statusCode).sort();
    expect(codes).toEqual([200, 409]);
    const refused = answers.find((answer) => answer.statusCode === 409)!;
    expect(refused.json().error.message).toBe('This tutor already has an ongoing engagement with this student.');
    expect(await startedInStore(tutorId)).toEqual([ann]);
    expect(await ongoingRows(tutorId)).toEqual([{ student_id: ann }]);
  });

  it('a termination that checked first loses to a start that wrote first: 409, the tutor stays active', async () => {
    const tutorId = await newTutor();
    const [ann] = studentIds;
    const starting = holdAt('engagement.start');
    const terminating = holdAt('tutor.terminate');
    removals.push(starting.remove, terminating.remove);
    const started = start(tutorId, ann!);
    const terminated = terminate(tutorId);
    // Both passed their checks: the tutor was active, and had no current student.
    await Promise.all([starting.arrived(1), terminating.arrived(1)]);
    starting.releaseNext();
    expect((await started).statusCode).toBe(200);
    terminating.releaseNext();
    const refused = await terminated;
    expect(refused.statusCode, refused.body).toBe(409);
    expect(refused.json().error.message).toMatch(/still has 1 current student\b/);
    expect(await tutorRow(tutorId)).toMatchObject({ active: true, end_date: null });
    expect(await ongoingRows(tutorId)).toEqual([{ student_id: ann }]);
  });

  it('a start that checked first loses to a termination that wrote first: 409, no engagement', async () => {
    const tutorId = await newTutor();
    const [, ben] = studentIds;
    const starting = holdAt('engagement.start');
    const terminating = holdAt('tutor.terminate');
    removals.push(starting.remove, terminating.remove);
    const started = start(tutorId, ben!);
    const terminated = terminate(tutorId);
    await Promise.all([starting.arrived(1), terminating.arrived(1)]);
    terminating.releaseNext();
    expect((await terminated).statusCode).toBe(200);
    starting.releaseNext();
    const refused = await started;
    expect(refused.statusCode, refused.body).toBe(409);
    expect(refused.json().error.message).toBe('This tutor is inactive: reactivate the tutor before adding students.');
    expect(await tutorRow(tutorId)).toMatchObject({ active: false });
    expect(await startedInStore(tutorId)).toEqual([]);
    expect(await ongoingRows(tutorId)).toEqual([]);
  });

  it('an engagement ended behind the roster (its roster update lost) is settled from the store, not a read model', async () => {
    const tutorId = await newTutor();
    const [ann] = studentIds;
    const { engagement } = await ok('/api/tutors/engagement', {
      tutorId,
      studentId: ann,
      rate: 40,
      commissionPct: 25,
      partnerPct: 0,
      startDate: '2025-01-06',
      subjects: ['Maths'],
    });
    // The engagement ends in its own stream only, as if the process died before the roster update.
    await product.command.deps.store.appendToStream(
      `engagement-${engagement.id}`,
      [
        {
          type: 'EngagementEnded',
          data: { engagementId: engagement.id, endDate: '2025-01-20' },
          metadata: { userId: 'test', role: 'admin', commandId: randomUUID(), correlationId: 't', causationId: 't' },
        },
      ],
      { expectedRevision: 'any' },
    );
    const done = await terminate(tutorId);
    expect(done.statusCode, done.body).toBe(200);
    const roster = await db.query(
      `select event_type as type from es.events where stream_id = $1 and event_type like 'TutorEngagement%' order by stream_revision`,
      [`tutor-${tutorId}`],
    );
    expect(roster.rows.map((row) => row.type)).toEqual(['TutorEngagementStarted', 'TutorEngagementEnded']);
  });

  it('engagements recorded before tutors kept a roster are put on it once (ended ones on and off), so they count', async () => {
    const tutorId = await newTutor();
    const [ann, ben] = studentIds;
    const { store } = product.command.deps;
    const metadata = { userId: 'test', role: 'admin', commandId: randomUUID(), correlationId: 't', causationId: 't' };
    const earlier = (engagementId: string, studentId: string) => ({
      type: 'EngagementStarted',
      data: {
        engagementId,
        tutorId,
        studentId,
        startDate: '2024-02-05',
        ratePence: 3000,
        commissionBp: 2500,
        partnerBp: 0,
        subjects: ['Maths'],
      },
      metadata,
    });
    const [current, ended] = [randomUUID(), randomUUID()];
    await store.appendToStream(`engagement-${current}`, [earlier(current, ann!)], { expectedRevision: 'no_stream' });
    await store.appendToStream(
      `engagement-${ended}`,
      [
        earlier(ended, ben!),
        { type: 'EngagementEnded', data: { engagementId: ended, endDate: '2024-03-01' }, metadata },
      ],
      { expectedRevision: 'no_stream' },
    );
    expect(await putEarlierEngagementsOnRosters(product.command.deps)).toBe(2);
    // Run again (a start that died before the migration was recorded): nothing is added twice.
    expect(await putEarlierEngagementsOnRosters(product.command.deps)).toBe(0);
    // The ended one goes on and off again: the roster's history tells invoicing its months.
    const history = await db.query(
      `select event_type as type, data->>'engagementId' as id from es.events
        where stream_id = $1 and event_type like 'TutorEngagement%' order by stream_revision`,
      [`tutor-${tutorId}`],
    );
    expect(history.rows.filter((row) => row.id === ended).map((row) => row.type)).toEqual([
      'TutorEngagementStarted',
      'TutorEngagementEnded',
    ]);
    const refused = await terminate(tutorId);
    expect(refused.statusCode, refused.body).toBe(409);
    expect(refused.json().error.message).toMatch(/still has 1 current student\b/);
    const again = await start(tutorId, ann!);
    expect(again.statusCode, again.body).toBe(409);
    expect(again.json().error.message).toBe('This tutor already has an ongoing engagement with this student.');
    expect((await start(tutorId, ben!)).statusCode).toBe(200);
  });
});
