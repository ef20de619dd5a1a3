import { randomUUID } from 'node:crypto';
import { invoice, timesheet } from '@agency/domain';
import { useProductWithFaults } from '@agency/scripts/testing/product-with-faults';
import type { TestProduct } from '@agency/scripts/testing/test-product';
import { contact, testRequests } from '@agency/scripts/testing/test-requests';
import type pg from 'pg';
import { describe, expect, it, vi } from 'vitest';
import { type FaultStep, injectFaults } from '../race-points';
import { INVOICES_REACTOR } from './invoice-reactor';

/**
 * A generation is one write (the month's lock) and a withdrawal one (the invoice's): the invoice and
 * the month's unlock follow from them by the invoices reactor, whatever happens to the command that
 * wrote them: a crash after its append, a crash inside the reaction, a retry, no retry at all.
 */
describe('tutor invoices follow from the month lock, unlocks from the withdrawal (real PostgreSQL)', () => {
  let product: TestProduct;
  let db: pg.Pool;
  let admin: string;
  let tutors = 0;

  // A retry names its command: `{ ...body, commandId }` (the helper's own id is then replaced).
  const { post, ok } = testRequests(
    () => product,
    () => admin,
  );
  const get = async (url: string) => {
    const response = await fetch(`${product.url}${url}`, { headers: { authorization: `Bearer ${admin}` } });
    return { status: response.status, body: await response.json() };
  };

  /** A tutor with an engagement since 2024 and one lesson in March 2025; its invoice prefix is unique. */
  const teachingTutor = async () => {
    const n = ++tutors;
    const prefix = `W${String.fromCharCode(64 + n)}`;
    const { tutor } = await ok('/api/tutors/contact', {
      contact: contact('Tess', `Flow${n}`),
      tutor: { username: `tessflow${n}`, invoicePrefix: prefix, startDate: '2024-01-01' },
    });
    const { client } = await ok('/api/clients/contact', contact('Pat', `Parent${n}`));
    const { child } = await ok(`/api/clients/child/${client.id}`, {
      firstName: 'Kit',
      lastName: 'P',
      dob: '2014-01-01',
    });
    const { engagement } = await ok('/api/tutors/engagement', {
      tutorId: tutor.id,
      studentId: child.id,
      rate: 40,
      commissionPct: 25,
      partnerPct: 0,
      startDate: '2024-01-01',
      subjects: ['Maths'],
    });
    await ok('/api/lessons/lesson?month=2025-03', {
      tutorId: tutor.id,
      lesson: { engagementId: engagement.id, date: '2025-03-03', duration: 1.5 },
    });
    return { tutorId: tutor.id as string, prefix, engagementId: engagement.id as string };
  };
  const generation = (tutorId: string) => ({ tutorId, year: 2025, month: 3 });
  const invoiceIdOf = (tutorId: string) => `${tutorId}_2025-03`;

  /** The events of a month's streams, from the event store itself (a read model could hide a second one). */
  const eventsOf = async (tutorId: string) =>
    (
      await db.query(
        `select event_type, data from es.events where stream_id = any($1) order by transaction_id, global_position`,
        [
          [
            timesheet.timesheetStream(tutorId, '2025-03'),
            invoice.invoiceStream(tutorId, '2025-03'),
            invoice.invoiceNumbersStream(tutorId),
          ],
        ],
      )
    ).rows
      .map((row) => row.event_type as string)
      .filter((type) => type !== 'LessonRecorded');
  const referenceOf = async (tutorId: string) =>
    (
      await db.query(
        `select data->>'reference' as reference from es.events where stream_id = $1 and event_type = 'InvoiceGenerated'`,
        [invoice.invoiceStream(tutorId, '2025-03')],
      )
    ).rows.map((row) => row.reference as string);
  const lessonSave = (tutorId: string, engagementId: string, date: string) =>
    post('/api/lessons/lesson?month=2025-03', { tutorId, lesson: { engagementId, date, duration: 1 } });

  /** Fails the command `commandId` right after it appended to a stream named `prefix…`: a crash between two writes. */
  const crashAfterAppend = (commandId: string, prefix: string) => {
    injectFaults({
      at: (fault: FaultStep) => {
        if (fault.step === 'appended' && fault.commandId === commandId && fault.streamId.startsWith(prefix)) {
          throw new Error('the process died here');
        }
      },
    });
  };
  /** Fails a reaction's step right after its append to each of `streamIds`, once each. */
  const crashInReaction = (...streamIds: string[]) => {
    const crashes = { count: 0 };
    const left = new Set(streamIds);
    injectFaults({
      at: (fault: FaultStep) => {
        if (fault.step === 'appended' && left.delete(fault.streamId)) {
          crashes.count++;
          throw new Error('the reactor died here');
        }
      },
    });
    return crashes;
  };

  /**
   * Records `write` as a store written before invoices followed locks: the invoices reactor is
   * stopped meanwhile and then moved past what was written, so it never reacts to it.
   */
  const beforeReactions = async (write: () => Promise<void>) => {
    await product.command.reactors.stop();
    try {
      await write();
      const head = await product.command.deps.store.head();
      await db.query(
        'update command.reactor_checkpoints set commit_position = $2, prepare_position = $3 where name = $1',
        [INVOICES_REACTOR, head.commit.toString(), head.prepare.toString()],
      );
    } finally {
      product.command.reactors.start();
    }
  };
  const system = { id: 'legacy', username: 'legacy', role: 'admin' as const };

  useProductWithFaults((started) => {
    ({ product, db, admin } = started);
  });

  it('a generation that died after its lock still gets its invoice, once; its retry answers as a clean run', async () => {
    const { tutorId, prefix } = await teachingTutor();
    const commandId = randomUUID();
    crashAfterAppend(commandId, 'timesheet-');
    expect((await post('/api/invoices/save', { ...generation(tutorId), commandId })).statusCode).toBe(500);
    injectFaults(undefined);
    // Nobody retried: the reactor generates the invoice from the locked lessons all the same.
    await vi.waitFor(async () => expect(await referenceOf(tutorId)).toEqual([`${prefix}0001`]), { timeout: 60_000 });

    const retried = await ok('/api/invoices/save', { ...generation(tutorId), commandId });
    const lock = (await product.command.deps.store.readStream(timesheet.timesheetStream(tutorId, '2025-03'))).at(-1)!;
    expect(lock.type).toBe('TimesheetMonthLocked');
    // The answer of a clean run: the invoice as its view shows it, and the position of its lock.
    expect(retried).toMatchObject({
      invoice: { id: invoiceIdOf(tutorId), reference: `${prefix}0001`, earnings: 60, totalCommission: 15 },
      position: `${lock.position.commit}/${lock.position.prepare}`,
      visible: true,
    });
    expect((await get(`/api/invoices/${invoiceIdOf(tutorId)}`)).body.invoice).toEqual(retried.invoice);
    expect(await ok('/api/invoices/save', { ...generation(tutorId), commandId })).toEqual(retried);
    // The UI's second click (a new id) adds nothing either.
    expect((await ok('/api/invoices/save', generation(tutorId))).invoice).toEqual(retried.invoice);
    expect(await eventsOf(tutorId)).toEqual(['TimesheetMonthLocked', 'InvoiceNumberTaken', 'InvoiceGenerated']);
  });

  it('a crash inside the generating step is retried by the reactor: one number, however often the step runs', async () => {
    const { tutorId, prefix } = await teachingTutor();
    // The step dies right after it took the number, runs again and dies right after it generated,
    // and runs a third time: it finds both done.
    const crashes = crashInReaction(invoice.invoiceNumbersStream(tutorId), invoice.invoiceStream(tutorId, '2025-03'));
    const commandId = randomUUID();
    const first = await post('/api/invoices/save', { ...generation(tutorId), commandId });
    // Answered once the reactor got through, or at once while it is stopped at the lock (then the
    // retry, with the same id, answers).
    if (first.statusCode !== 200) {
      expect(first.json().error.code, first.body).toBe('under_way');
      await vi.waitFor(async () => expect(await referenceOf(tutorId)).toHaveLength(1), { timeout: 60_000 });
    }
    expect(crashes.count).toBe(2);
    const { invoice: generated } = await ok('/api/invoices/save', { ...generation(tutorId), commandId });
    expect(generated.reference).toBe(`${prefix}0001`);
    expect(await eventsOf(tutorId)).toEqual(['TimesheetMonthLocked', 'InvoiceNumberTaken', 'InvoiceGenerated']);
    await vi.waitFor(async () => {
      const stopped = await db.query('select failure from command.reactor_checkpoints where name = $1', [
        INVOICES_REACTOR,
      ]);
      expect(stopped.rows[0].failure).toBeNull();
    });
  });

  it('a generation answers once its invoice is generated, and the month is locked for lessons', async () => {
    const { tutorId, engagementId } = await teachingTutor();
    const { invoice: generated } = await ok('/api/invoices/save', generation(tutorId));
    expect(generated).toMatchObject({ earnings: 60, totalCommission: 15, confirmed: false });
    expect((await lessonSave(tutorId, engagementId, '2025-03-10')).statusCode).toBe(409);
    const reaction = await db.query(
      `select e.metadata->>'causationId' as cause, l.event_id::text as lock
         from es.events e, es.events l
        where e.stream_id = $1 and e.event_type = 'InvoiceGenerated'
          and l.stream_id = $2 and l.event_type = 'TimesheetMonthLocked'`,
      [invoice.invoiceStream(tutorId, '2025-03'), timesheet.timesheetStream(tutorId, '2025-03')],
    );
    // The invoice names the lock it follows as its cause.
    expect(reaction.rows).toHaveLength(1);
    expect(reaction.rows[0].cause).toBe(reaction.rows[0].lock);
  });

  it('numbers continue after the highest the old counter gave, and never repeat after a withdrawal', async () => {
    const { tutorId, prefix } = await teachingTutor();
    await db.query('insert into invoice.reference_counters (tutor_id, last_number) values ($1, 41)', [tutorId]);
    const { invoice: first } = await ok('/api/invoices/save', generation(tutorId));
    expect(first.reference).toBe(`${prefix}0042`);
    await ok('/api/invoices/withdraw', { id: first.id });
    const { invoice: second } = await ok('/api/invoices/save', generation(tutorId));
    expect(second.reference).toBe(`${prefix}0043`);
    const { invoice: february } = await ok('/api/invoices/save', { tutorId, year: 2025, month: 2 });
    expect(february.reference).toBe(`${prefix}0044`);
  });

  it('a withdrawal that died after its append still opens the month, once; its retry answers as a clean run', async () => {
    const { tutorId, engagementId } = await teachingTutor();
    const { invoice: generated } = await ok('/api/invoices/save', generation(tutorId));
    const commandId = randomUUID();
    crashAfterAppend(commandId, 'invoice-');
    expect((await post('/api/invoices/withdraw', { id: generated.id, commandId })).statusCode).toBe(500);
    injectFaults(undefined);
    // Nobody retried: the reactor unlocks the month all the same.
    await vi.waitFor(async () => expect((await eventsOf(tutorId)).at(-1)).toBe('TimesheetMonthUnlocked'), {
      timeout: 60_000,
    });
    const retried = await ok('/api/invoices/withdraw', { id: generated.id, commandId });
    expect(retried.invoice).toEqual({ id: generated.id, tutorId, month: '2025-03', voided: [generated.reference] });
    expect(await ok('/api/invoices/withdraw', { id: generated.id, commandId })).toEqual(retried);
    expect((await lessonSave(tutorId, engagementId, '2025-03-10')).statusCode).toBe(200);
    expect(await eventsOf(tutorId)).toEqual([
      'TimesheetMonthLocked',
      'InvoiceNumberTaken',
      'InvoiceGenerated',
      'InvoiceWithdrawn',
      'TimesheetMonthUnlocked',
    ]);
  });

  it('a crash inside the unlocking step is retried by the reactor and ends in one unlock', async () => {
    const { tutorId, engagementId } = await teachingTutor();
    const { invoice: generated } = await ok('/api/invoices/save', generation(tutorId));
    const crashes = crashInReaction(timesheet.timesheetStream(tutorId, '2025-03'));
    await ok('/api/invoices/withdraw', { id: generated.id });
    await vi.waitFor(async () => expect((await eventsOf(tutorId)).at(-1)).toBe('TimesheetMonthUnlocked'), {
      timeout: 60_000,
    });
    expect(crashes.count).toBe(1);
    expect((await lessonSave(tutorId, engagementId, '2025-03-10')).statusCode).toBe(200);
    expect(await eventsOf(tutorId)).toEqual([
      'TimesheetMonthLocked',
      'InvoiceNumberTaken',
      'InvoiceGenerated',
      'InvoiceWithdrawn',
      'TimesheetMonthUnlocked',
    ]);
  });

  it('a lock from before invoices followed locks, with no invoice, is locked again and invoiced', async () => {
    const { tutorId, prefix } = await teachingTutor();
    await beforeReactions(async () => {
      const { context } = product.command.actAs(system, randomUUID());
      await context.run(timesheet.timesheetStream(tutorId, '2025-03'), timesheet.timesheetDecider, {
        type: 'LockMonth',
        tutorId,
        month: '2025-03',
        invoiceId: invoiceIdOf(tutorId),
      });
    });
    const { invoice: generated } = await ok('/api/invoices/save', generation(tutorId));
    expect(generated).toMatchObject({ reference: `${prefix}0001`, earnings: 60 });
    expect(await eventsOf(tutorId)).toEqual([
      'TimesheetMonthLocked',
      'TimesheetMonthLocked',
      'InvoiceNumberTaken',
      'InvoiceGenerated',
    ]);
  });

  it('a withdrawal from before unlocks followed withdrawals, whose month stayed locked, is opened by the next withdraw', async () => {
    const { tutorId, engagementId } = await teachingTutor();
    const { invoice: generated } = await ok('/api/invoices/save', generation(tutorId));
    await beforeReactions(async () => {
      const { context } = product.command.actAs(system, randomUUID());
      await context.run(invoice.invoiceStream(tutorId, '2025-03'), invoice.invoiceDecider, {
        type: 'WithdrawInvoice',
        actor: { role: 'admin' },
      });
    });
    expect((await lessonSave(tutorId, engagementId, '2025-03-10')).statusCode).toBe(409);
    const withdrawn = await ok('/api/invoices/withdraw', { id: generated.id });
    expect(withdrawn.invoice.voided).toEqual([generated.reference]);
    expect((await lessonSave(tutorId, engagementId, '2025-03-10')).statusCode).toBe(200);
    expect((await eventsOf(tutorId)).slice(-2)).toEqual(['InvoiceWithdrawn', 'TimesheetMonthUnlocked']);
  });
});
