import { randomUUID } from 'node:crypto';
import { contactBody, type SessionUser } from '@agency/contracts';
import { client, contactDetails } from '@agency/domain';
import { installErrorReplies } from '@agency/platform';
import { startTestProduct, TEST_ADMIN, type TestProduct } from '@agency/scripts/testing/test-product';
import Fastify, { type FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type CommandDependencies, commandRoute } from './pipeline/command-pipeline';
import { ProcessedCommands } from './pipeline/idempotency';
import { type FaultStep, injectFaults } from './race-points';

const contact = {
  firstName: 'Ann',
  lastName: 'Lee',
  address: ['1 High Street', '', 'Oxford', ''],
  postcode: 'OX1 1AA',
  email: 'ann@example.com',
  phone: [{ type: 'Home', number: '01865 000000' }],
};

/** A gate a fault holds a runner at: the runner is "crashed" until (if ever) the test opens it. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  let reach!: () => void;
  const reached = new Promise<void>((resolve) => {
    reach = resolve;
  });
  return { open, opened, reach, reached };
}

type Step = FaultStep['step'] | 'projection-wait';

describe('exactly-once commands: every retry of a commandId appends once and gets one answer', () => {
  let product: TestProduct;
  let db: pg.Pool;
  let admin: string;
  let deps: CommandDependencies;
  let twoStreams: FastifyInstance;
  const realProcessed: { value?: ProcessedCommands } = {};
  const realWaitFor: { value?: CommandDependencies['projections']['waitFor'] } = {};
  const operator: SessionUser = { id: 'u-exactly-once', username: 'operator', role: 'admin' };

  beforeAll(async () => {
    product = await startTestProduct();
    db = new pg.Pool({ connectionString: product.databaseUrl });
    admin = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
    deps = product.command.deps;
    realProcessed.value = deps.processed;
    realWaitFor.value = deps.projections.waitFor.bind(deps.projections);
    // A repeat waits briefly for a running delivery, so "still in progress" answers come quickly here.
    deps.processed = new ProcessedCommands(db, { waitMs: 300, pollMs: 20 });

    // A command that appends to two streams in sequence: two new clients, the second registered
    // only after the first was appended (as a client and then its contact, or accounts and a tutor).
    twoStreams = Fastify();
    installErrorReplies(twoStreams);
    twoStreams.decorate('authenticate', async () => operator);
    commandRoute(twoStreams, deps, {
      url: '/test/two-clients',
      roles: ['admin'],
      body: contactBody,
      handle: async ({ body }, { run, now, newId }) => {
        const ids = [newId(), newId()];
        for (const clientId of ids) {
          await run(client.clientStream(clientId), client.clientDecider, {
            type: 'RegisterClient',
            clientId,
            startDate: now.toISOString().slice(0, 10),
            contact: contactDetails(newId(), body),
          });
        }
        return { clients: ids };
      },
    });
    await twoStreams.ready();
  });
  afterEach(() => {
    injectFaults(undefined);
    deps.projections.waitFor = realWaitFor.value as CommandDependencies['projections']['waitFor'];
  });
  afterAll(async () => {
    if (realProcessed.value) deps.processed = realProcessed.value;
    await twoStreams.close();
    await db.end();
    await product.dispose();
  });

  const postProduct = (url: string, payload: object) =>
    product.command.app.inject({ method: 'POST', url, payload, headers: { authorization: `Bearer ${admin}` } });
  const postTwo = (payload: object) => twoStreams.inject({ method: 'POST', url: '/test/two-clients', payload });
  const eventsOf = async (commandId: string) =>
    (
      await db.query(
        `select stream_id, event_type from es.events where metadata->>'commandId' = $1 order by global_position`,
        [commandId],
      )
    ).rows as { stream_id: string; event_type: string }[];
  /** Time passes: the lease of an unanswered claim runs out (as 30 s after its runner crashed). */
  const leaseRunsOut = (commandId: string) =>
    db.query('update command.processed_commands set lease_until = now() where command_id = $1', [commandId]);

  /**
   * Holds the runner of `commandId` at `step` (the first time it gets there, or at the n-th
   * append) and then either keeps it there (a crash: it does nothing more until the test opens the
   * gate) or throws (a failure).
   */
  function faultAt(commandId: string, step: Step, mode: 'crash' | 'fail', occurrence = 1) {
    const held = gate();
    let seen = 0;
    const hit = async () => {
      seen++;
      if (seen !== occurrence) return;
      held.reach();
      if (mode === 'fail') throw new Error(`injected failure at ${step}`);
      await held.opened;
    };
    if (step === 'projection-wait') {
      const real = realWaitFor.value as CommandDependencies['projections']['waitFor'];
      deps.projections.waitFor = async (...args) => {
        const reached = real(...args);
        await hit();
        return reached;
      };
    } else {
      injectFaults({
        at: async (fault) => {
          if (fault.commandId === commandId && fault.step === step) await hit();
        },
      });
    }
    return held;
  }

  type Case = { name: string; step: Step; occurrence?: number; appendedBefore: number };
  const cases: Case[] = [
    { name: 'after the claim', step: 'claimed', appendedBefore: 0 },
    { name: 'after the first append (between the two streams)', step: 'appended', appendedBefore: 1 },
    { name: 'after the last append, before the answer', step: 'handled', appendedBefore: 2 },
    { name: 'during the projection wait', step: 'projection-wait', appendedBefore: 2 },
    { name: 'just before the answer is recorded', step: 'recording', appendedBefore: 2 },
  ];

  describe.each(cases)('a crash $name', ({ step, occurrence, appendedBefore }) => {
    it('is answered "in progress" until the lease runs out, then a retry completes it once; the crashed runner, should it wake, changes nothing', async () => {
      const commandId = randomUUID();
      const crash = faultAt(commandId, step, 'crash', occurrence);
      const crashed = postTwo({ ...contact, commandId });
      await crash.reached;
      expect((await eventsOf(commandId)).length).toBe(appendedBefore);

      // The crashed runner still holds its lease: a retry is told to come back.
      const early = await postTwo({ ...contact, commandId });
      expect(early.statusCode).toBe(409);
      expect(early.json().error.code).toBe('command_in_progress');
      expect((await eventsOf(commandId)).length).toBe(appendedBefore);

      await leaseRunsOut(commandId);
      const retry = await postTwo({ ...contact, commandId });
      expect(retry.statusCode, retry.body).toBe(200);
      const answer = retry.json();
      const events = await eventsOf(commandId);
      expect(events.map((e) => e.event_type)).toEqual(['ClientRegistered', 'ClientRegistered']);
      expect(events.map((e) => e.stream_id)).toEqual(answer.clients.map((id: string) => `client-${id}`));

      // Every later delivery gets the same answer and appends nothing.
      const again = await postTwo({ ...contact, commandId });
      expect(again.statusCode).toBe(200);
      expect(again.json()).toEqual(answer);

      // The runner that was presumed dead wakes up and finishes: it appends nothing and answers the same.
      crash.open();
      const late = await crashed;
      expect(late.statusCode).toBe(200);
      expect(late.json()).toEqual(answer);
      expect(await eventsOf(commandId)).toEqual(events);
    });
  });

  describe.each(cases)('a failure $name', ({ step, occurrence, appendedBefore }) => {
    it('answers 500, and a retry at once completes the command once with one answer from then on', async () => {
      const commandId = randomUUID();
      faultAt(commandId, step, 'fail', occurrence);
      const failed = await postTwo({ ...contact, commandId });
      expect(failed.statusCode).toBe(500);
      expect((await eventsOf(commandId)).length).toBe(appendedBefore);

      const retry = await postTwo({ ...contact, commandId });
      expect(retry.statusCode, retry.body).toBe(200);
      const answer = retry.json();
      const events = await eventsOf(commandId);
      expect(events.map((e) => e.stream_id)).toEqual(answer.clients.map((id: string) => `client-${id}`));
      const again = await postTwo({ ...contact, commandId });
      expect(again.json()).toEqual(answer);
      expect(await eventsOf(commandId)).toEqual(events);
    });
  });

  it('a crashed runner and the retry that took over its lapsed lease, running at the same moment, append once and answer alike', async () => {
    const commandId = randomUUID();
    const first = faultAt(commandId, 'claimed', 'crash');
    const crashed = postTwo({ ...contact, commandId });
    await first.reached;
    await leaseRunsOut(commandId);
    const second = gate();
    injectFaults({
      at: async (fault) => {
        if (fault.commandId !== commandId || fault.step !== 'claimed') return;
        second.reach();
        await second.opened;
      },
    });
    const retry = postTwo({ ...contact, commandId });
    await second.reached;
    // Both runners now hold the command past their claim; both go on at once.
    first.open();
    second.open();
    const [a, b] = await Promise.all([crashed, retry]);
    expect(a.statusCode, a.body).toBe(200);
    expect(b.statusCode, b.body).toBe(200);
    expect(b.json()).toEqual(a.json());
    expect((await eventsOf(commandId)).length).toBe(2);
  });

  it('two concurrent deliveries: the second is told "in progress" while the first runs, then gets its answer', async () => {
    const commandId = randomUUID();
    const held = faultAt(commandId, 'handled', 'crash');
    const first = postProduct('/api/clients/contact', { ...contact, commandId });
    await held.reached;
    const second = await postProduct('/api/clients/contact', { ...contact, commandId });
    expect(second.statusCode).toBe(409);
    expect(second.json().error.code).toBe('command_in_progress');
    held.open();
    const answer = await first;
    expect(answer.statusCode).toBe(200);
    const retried = await postProduct('/api/clients/contact', { ...contact, commandId });
    expect(retried.json()).toEqual(answer.json());
    expect(await eventsOf(commandId)).toEqual([
      { stream_id: `client-${answer.json().client.id}`, event_type: 'ClientRegistered' },
    ]);
  });

  it('a new tutor whose runner crashed after the append is completed by the retry: its names are its own, not "taken"', async () => {
    const commandId = randomUUID();
    const payload = {
      commandId,
      contact: { ...contact, firstName: 'Tom', lastName: 'Once', email: 'tom.once@example.com' },
      tutor: { username: 'tom.once', invoicePrefix: 'ONC' },
    };
    const crash = faultAt(commandId, 'handled', 'crash');
    const crashed = postProduct('/api/tutors/contact', payload);
    await crash.reached;
    await leaseRunsOut(commandId);
    const retry = await postProduct('/api/tutors/contact', payload);
    expect(retry.statusCode, retry.body).toBe(200);
    expect(retry.json().tutor).toMatchObject({ username: 'tom.once', invoicePrefix: 'ONC' });
    expect(await eventsOf(commandId)).toEqual([
      { stream_id: `tutor-${retry.json().tutor.id}`, event_type: 'TutorRegistered' },
    ]);
    crash.open();
    expect((await crashed).json()).toEqual(retry.json());
  });
});
