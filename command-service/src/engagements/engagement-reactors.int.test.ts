import { randomUUID } from 'node:crypto';
import { startTestProduct, TEST_ADMIN, type TestProduct } from '@agency/scripts/testing/test-product';
import { contact, testRequests } from '@agency/scripts/testing/test-requests';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { derivedId } from '../pipeline/command-pipeline';
import { type FaultStep, injectFaults } from '../race-points';

type Row = { stream_id: string; event_type: string; id: string; causation: string; command: string };

describe('an engagement start is one command on the roster; reactors record it and take it off again', () => {
  let product: TestProduct;
  let db: pg.Pool;
  let admin: string;
  let students: string[];
  const { post, ok, get } = testRequests(
    () => product,
    () => admin,
  );

  let tutorCount = 0;
  const newTutor = async () => {
    tutorCount += 1;
    const { tutor } = await ok('/api/tutors/contact', {
      contact: contact('Reacting', `Tutor${tutorCount}`),
      tutor: { username: `reactor${tutorCount}`, invoicePrefix: `RE${tutorCount}`, startDate: '2024-01-01' },
    });
    return tutor.id as string;
  };
  const terms = { rate: 42.5, commissionPct: 20, partnerPct: 5, startDate: '2025-02-03', subjects: ['Maths'] };
  const startBody = (tutorId: string, studentId: string, commandId = randomUUID()) => ({
    commandId,
    tutorId,
    studentId,
    ...terms,
  });
  /** The engagement a start names: its id derives from the command id, so every run of it names the same. */
  const engagementOf = (commandId: string) => derivedId(commandId, 'id', 0);

  /** Every event of a start or an end, the reactors' included: they keep the command's correlation id. */
  const eventsCorrelatedTo = async (commandId: string) =>
    (
      await db.query(
        `select stream_id, event_type, event_id::text as id, metadata->>'causationId' as causation,
                metadata->>'commandId' as command
           from es.events where metadata->>'correlationId' = $1 order by global_position`,
        [commandId],
      )
    ).rows as Row[];
  const eventsIn = async (streamId: string) =>
    (
      await db.query(
        `select stream_id, event_type, event_id::text as id, metadata->>'causationId' as causation,
                metadata->>'commandId' as command
           from es.events where stream_id = $1 order by stream_revision`,
        [streamId],
      )
    ).rows as Row[];
  /** The streams a command itself appended to (its own events, not those of the reactors that followed). */
  const streamsWrittenBy = async (commandId: string) =>
    (
      await db.query(`select distinct stream_id from es.events where metadata->>'commandId' = $1`, [commandId])
    ).rows.map((row) => row.stream_id as string);
  /** Whether `reactor` has reacted to the event (its checkpoint is at or past it): it never skips one. */
  const hasReactedTo = async (reactor: string, eventId: string) =>
    (
      await db.query(
        `select (c.commit_position, c.prepare_position) >= (e.transaction_id::text::bigint, e.global_position) as done,
                c.failure
           from command.reactor_checkpoints c, es.events e
          where c.name = $1 and e.event_id = $2`,
        [reactor, eventId],
      )
    ).rows[0] as { done: boolean; failure: unknown } | undefined;

  /** Throws once, right after `streamId` was appended to by a command that `which` picks. */
  function failOnceAfterAppend(streamId: string, which: (fault: Extract<FaultStep, { step: 'appended' }>) => boolean) {
    let hits = 0;
    injectFaults({
      at: (fault) => {
        if (fault.step !== 'appended' || fault.streamId !== streamId || !which(fault)) return;
        hits += 1;
        if (hits === 1) throw new Error(`injected failure after appending to ${streamId}`);
      },
    });
    return { hits: () => hits };
  }

  beforeAll(async () => {
    product = await startTestProduct();
    db = new pg.Pool({ connectionString: product.databaseUrl });
    admin = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
    const { client } = await ok('/api/clients/contact', contact('Parent', 'Reactor'));
    students = [];
    for (const first of ['Ann', 'Ben', 'Cat', 'Dan']) {
      const { child } = await ok(`/api/clients/child/${client.id}`, {
        firstName: first,
        lastName: 'Reactor',
        dob: '2012-05-01',
      });
      students.push(child.id);
    }
  });
  afterEach(() => {
    injectFaults(undefined);
  });
  afterAll(async () => {
    await db?.end();
    await product?.dispose();
  });

  it('a start that failed after its roster write is completed by its retry: same engagement, recorded once', async () => {
    const tutorId = await newTutor();
    const commandId = randomUUID();
    const engagementId = engagementOf(commandId);
    const fault = failOnceAfterAppend(`tutor-${tutorId}`, (at) => at.commandId === commandId);
    const failed = await post('/api/tutors/engagement', startBody(tutorId, students[0]!, commandId));
    expect(failed.statusCode, failed.body).toBe(500);
    expect(fault.hits()).toBe(1);

    // The student is on the roster because of this very command: its retry is not refused for it.
    const retry = await post('/api/tutors/engagement', startBody(tutorId, students[0]!, commandId));
    expect(retry.statusCode, retry.body).toBe(200);
    expect(retry.json().engagement).toMatchObject({ id: engagementId, tutorId, rate: 42.5, startDate: '2025-02-03' });
    const again = await post('/api/tutors/engagement', startBody(tutorId, students[0]!, commandId));
    expect(again.json()).toEqual(retry.json());

    const roster = (await eventsIn(`tutor-${tutorId}`)).filter((row) => row.event_type.startsWith('TutorEngagement'));
    expect(roster.map((row) => row.event_type)).toEqual(['TutorEngagementStarted']);
    const started = await db.query(
      `select stream_id from es.events where event_type = 'EngagementStarted' and data->>'tutorId' = $1`,
      [tutorId],
    );
    expect(started.rows).toEqual([{ stream_id: `engagement-${engagementId}` }]);
    expect(await streamsWrittenBy(commandId)).toEqual([`tutor-${tutorId}`]);
  });

  it('a start whose command never comes back is recorded all the same: the reactor completes it', async () => {
    const tutorId = await newTutor();
    const commandId = randomUUID();
    const engagementId = engagementOf(commandId);
    failOnceAfterAppend(`tutor-${tutorId}`, (at) => at.commandId === commandId);
    expect((await post('/api/tutors/engagement', startBody(tutorId, students[1]!, commandId))).statusCode).toBe(500);

    await vi.waitFor(
      async () => {
        const view = await get(`/api/tutors/engagement/${tutorId}/${engagementId}`);
        expect(view.status).toBe(200);
        expect(view.body.engagement).toMatchObject({ studentId: students[1], rate: 42.5, subjects: ['Maths'] });
      },
      { timeout: 60_000, interval: 50 },
    );
    const [putOnRoster, recorded] = await eventsCorrelatedTo(commandId);
    expect(putOnRoster).toMatchObject({ stream_id: `tutor-${tutorId}`, event_type: 'TutorEngagementStarted' });
    // Recorded by the reactor, as caused by the roster's event.
    expect(recorded).toMatchObject({
      stream_id: `engagement-${engagementId}`,
      event_type: 'EngagementStarted',
      causation: putOnRoster!.id,
    });
    expect(recorded!.command).not.toBe(commandId);
  });

  it('a reaction that failed after its append is retried and ends in exactly the events of one clean run', async () => {
    const [faulty, clean] = [await newTutor(), await newTutor()];
    const [faultyCommand, cleanCommand] = [randomUUID(), randomUUID()];
    const fault = failOnceAfterAppend(
      `engagement-${engagementOf(faultyCommand)}`,
      (at) => at.commandId !== faultyCommand,
    );
    const answered = await ok('/api/tutors/engagement', startBody(faulty, students[2]!, faultyCommand));
    expect(answered.engagement).toMatchObject({ id: engagementOf(faultyCommand), rate: 42.5 });
    // The reaction failed once after its append; the runner tried it again until it passed the event.
    const [putOnRoster] = await eventsCorrelatedTo(faultyCommand);
    await vi.waitFor(
      async () =>
        expect(await hasReactedTo('engagement-start', putOnRoster!.id)).toEqual({ done: true, failure: null }),
      { timeout: 60_000, interval: 50 },
    );
    expect(fault.hits()).toBe(1);
    await ok('/api/tutors/engagement', startBody(clean, students[2]!, cleanCommand));

    // The same events, stream for stream, as a start that nothing interrupted.
    const shape = (rows: Row[], tutorId: string, commandId: string) =>
      rows.map((row) => ({
        stream: row.stream_id.replace(tutorId, 'T').replace(engagementOf(commandId), 'E'),
        type: row.event_type,
      }));
    const faultyEvents = shape(await eventsCorrelatedTo(faultyCommand), faulty, faultyCommand);
    expect(faultyEvents).toEqual(shape(await eventsCorrelatedTo(cleanCommand), clean, cleanCommand));
    expect(faultyEvents).toEqual([
      { stream: 'tutor-T', type: 'TutorEngagementStarted' },
      { stream: 'engagement-E', type: 'EngagementStarted' },
    ]);
  });

  it('a termination takes the engagement off the roster through the reactor: the student may start afresh', async () => {
    const tutorId = await newTutor();
    const { engagement } = await ok('/api/tutors/engagement', startBody(tutorId, students[3]!));
    const refused = await post('/api/tutors/engagement', startBody(tutorId, students[3]!));
    expect(refused.statusCode).toBe(409);

    const terminationCommand = randomUUID();
    const ended = await ok('/api/tutors/engagement', {
      commandId: terminationCommand,
      id: engagement.id,
      tutorId,
      change: 'termination',
      ...terms,
      endDate: '2025-03-31',
    });
    expect(ended.engagement.endDate).toBe('2025-03-31');
    expect(await streamsWrittenBy(terminationCommand)).toEqual([`engagement-${engagement.id}`]);
    const [end] = (await eventsIn(`engagement-${engagement.id}`)).filter((row) => row.event_type === 'EngagementEnded');
    await vi.waitFor(
      async () => {
        const off = (await eventsIn(`tutor-${tutorId}`)).filter((row) => row.event_type === 'TutorEngagementEnded');
        // Taken off by the reaction to the end, not by a settling of the roster.
        expect(off).toMatchObject([{ causation: end!.id }]);
      },
      { timeout: 60_000, interval: 50 },
    );
    const afresh = await ok('/api/tutors/engagement', startBody(tutorId, students[3]!));
    expect(afresh.engagement.id).not.toBe(engagement.id);
  });

  describe('a change of rates reprices the lessons from its date in the months not yet invoiced', () => {
    /** £28 an hour at 25 % (10 % partner share) from June 2025, with its lessons of the dates given (hours). */
    async function taughtAt28(first: string, lessons: [string, number][]) {
      const tutorId = await newTutor();
      const { client } = await ok('/api/clients/contact', contact('Parent', `Priced${tutorCount}`));
      const { child } = await ok(`/api/clients/child/${client.id}`, {
        firstName: first,
        lastName: `Priced${tutorCount}`,
        dob: '2012-05-01',
      });
      const { engagement } = await ok('/api/tutors/engagement', {
        tutorId,
        studentId: child.id,
        rate: 28,
        commissionPct: 25,
        partnerPct: 10,
        startDate: '2025-06-02',
        subjects: ['Maths'],
      });
      for (const [date, duration] of lessons) {
        await ok(`/api/lessons/lesson?month=${date.slice(0, 7)}`, {
          tutorId,
          lesson: { engagementId: engagement.id, date, duration },
        });
      }
      const rates = (rate: number, startDate: string, commandId = randomUUID()) => ({
        commandId,
        id: engagement.id,
        tutorId,
        change: 'rates',
        rate,
        commissionPct: 25,
        partnerPct: 10,
        startDate,
        subjects: ['Maths'],
      });
      return { tutorId, engagementId: engagement.id as string, rates };
    }
    const monthOf = async (tutorId: string, year: number, month: number) =>
      (await get(`/api/lessons?year=${year}&month=${month}&tutorId=${tutorId}`)).body;
    const countEvents = async () => Number((await db.query('select count(*) from es.events')).rows[0].count);

    it('reprices them and says which; the November invoice bills £30 a lesson to the penny; a change into an invoiced month is refused, naming its invoice', async () => {
      const { tutorId, rates } = await taughtAt28('Eve', [
        ['2025-08-25', 1],
        ['2025-09-03', 1],
        ['2025-09-10', 1.5],
        ['2025-10-01', 1],
        ['2025-11-05', 1],
        ['2025-11-12', 0.33],
        ['2025-11-19', 1.5],
      ]);
      // August is invoiced, but before the change's date: nothing of it is repriced.
      const { invoice: august } = await ok('/api/invoices/save', { tutorId, year: 2025, month: 8 });

      const changed = await ok('/api/tutors/engagement', rates(30, '2025-09-01'));
      const repriced = (date: string, duration: number, previousAmount: number, amount: number) => ({
        id: expect.any(String),
        date,
        duration,
        previousAmount,
        amount,
      });
      expect(changed.repriced).toEqual({
        from: '2025-09-01',
        complete: true,
        lessons: [
          repriced('2025-09-03', 1, 28, 30),
          repriced('2025-09-10', 1.5, 42, 45),
          repriced('2025-10-01', 1, 28, 30),
          repriced('2025-11-05', 1, 28, 30),
          repriced('2025-11-12', 0.33, 9.24, 9.9),
          repriced('2025-11-19', 1.5, 42, 45),
        ],
      });
      const november = await monthOf(tutorId, 2025, 11);
      expect(november.lessons.map((lesson: { rate: number; amount: number }) => [lesson.rate, lesson.amount])).toEqual([
        [30, 30],
        [30, 9.9],
        [30, 45],
      ]);
      expect((await monthOf(tutorId, 2025, 8)).lessons[0]).toMatchObject({ rate: 28, amount: 28, locked: true });

      // 25 % of each lesson, half-up per lesson: £7.50 + £2.48 (of £9.90) + £11.25; and 10 % of
      // each commission: 75p + 25p + £1.13. At £28 it would have been £79.24 and £19.81.
      const { invoice } = await ok('/api/invoices/save', { tutorId, year: 2025, month: 11 });
      expect(invoice).toMatchObject({ earnings: 84.9, commission: 21.23, partnerCommission: 2.13 });
      // Traced to its sources, the invoice is its lessons as repriced, each by the period that now prices it.
      const trace = await get(`/api/invoices/trace/${invoice.id}`);
      expect(trace.body).toMatchObject({ matches: true, differences: [] });

      const before = await countEvents();
      const refused = await post('/api/tutors/engagement', rates(32, '2025-09-01'));
      expect(refused.statusCode, refused.body).toBe(409);
      expect(refused.json().error).toEqual({
        code: 'locked',
        message: `This change would reprice lessons of November 2025 (invoice ${invoice.reference}), which is invoiced, and an invoice never changes. Make the change from 01 Dec 2025 or later, or first withdraw that invoice if not yet confirmed.`,
        fields: { startDate: 'Invoiced before 01 Dec 2025' },
      });
      expect(await countEvents()).toBe(before);
      expect(august.reference).not.toBe(invoice.reference);
    });

    it('a reaction that crashed after its first month is retried and reprices each month once', async () => {
      const { tutorId, engagementId, rates } = await taughtAt28('Fay', [
        ['2025-09-03', 1],
        ['2025-10-01', 1],
        ['2025-11-05', 1],
      ]);
      const commandId = randomUUID();
      const fault = failOnceAfterAppend(`timesheet-${tutorId}-2025-09`, (at) => at.commandId !== commandId);
      await ok('/api/tutors/engagement', rates(30, '2025-09-01', commandId));
      const [change] = (await eventsIn(`engagement-${engagementId}`)).filter(
        (row) => row.event_type === 'EngagementRatesChanged',
      );
      await vi.waitFor(
        async () => expect(await hasReactedTo('lesson-repricing', change!.id)).toEqual({ done: true, failure: null }),
        { timeout: 60_000, interval: 50 },
      );
      expect(fault.hits()).toBe(1);
      for (const month of ['2025-09', '2025-10', '2025-11']) {
        const repricings = (await eventsIn(`timesheet-${tutorId}-${month}`)).filter(
          (row) => row.event_type === 'LessonsRepriced',
        );
        expect(
          repricings.map((row) => row.causation),
          month,
        ).toEqual([change!.id]);
        const lessons = (await monthOf(tutorId, 2025, Number(month.slice(5)))).lessons;
        expect(
          lessons.map((lesson: { amount: number }) => lesson.amount),
          month,
        ).toEqual([30]);
      }
    });
  });
});
