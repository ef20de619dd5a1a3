import { randomUUID } from 'node:crypto';
import { useProductWithFaults } from '@agency/scripts/testing/product-with-faults';
import type { TestProduct } from '@agency/scripts/testing/test-product';
import { testRequests } from '@agency/scripts/testing/test-requests';
import type pg from 'pg';
import { describe, expect, it, vi } from 'vitest';
import { type FaultStep, injectFaults, onRacePoint } from '../race-points';

const booking = (email: string, lastName = 'Lee') => ({
  contact: {
    firstName: 'Jo',
    lastName,
    address: ['1 High Street', 'Oxford'],
    postcode: 'OX1 1AA',
    email,
    phone: '07700 900000',
  },
  children: [{ firstName: 'Ann', lastName: 'Lee', school: 'St Mary', schoolYear: '5', allergies: 'None' }],
});

/**
 * The workshop workflows that follow from one command (credits after a cancel or a delete, the move
 * out of the old event, the invoice after a confirmation) complete whatever happens to the command
 * that caused them: a crash after its append, a retry, a second click with a new id, an erasure.
 */
describe('workshop workflows are reactors: crashes, retries and erasures never lose a credit (real PostgreSQL)', () => {
  let product: TestProduct;
  let db: pg.Pool;
  let admin: string;
  let parents = 0;

  // A retry names its command: `{ ...body, commandId }` (the helper's own id is then replaced).
  const { post, ok } = testRequests(
    () => product,
    () => admin,
  );
  /** A public booking asked for (awaiting its address's confirmation). */
  const request = async (eventId: string, email: string, commandId = randomUUID()) => {
    const response = await product.command.app.inject({
      method: 'POST',
      url: `/api/public/events/${eventId}/registrations`,
      payload: { commandId, ...booking(email) },
      remoteAddress: `10.1.0.${++parents}`,
    });
    expect(response.statusCode, response.body).toBe(200);
    return response.json().registration.id as string;
  };
  /** A booking an admin makes on the parent's behalf: registered at once. */
  const book = async (eventId: string, email: string) =>
    (await ok('/api/events/register', { eventId, ...booking(email) })).registration.id as string;
  let events = 0;
  const newEvent = async () =>
    (
      await ok('/api/events', {
        description: `Workflow day ${++events}`,
        dateTime: '2099-07-20T10:00',
        durationMinutes: 60,
        price: 20,
        capacity: 10,
        location: 'Hall',
      })
    ).event.id as string;
  const invoice = async (registrationIds: string[]) =>
    (await ok('/api/events/confirmInvoice', { registrationIds, discountAmount: 0 })).invoice as {
      id: string;
      reference: string;
    };
  /** The credit notes of an invoice, from the event store itself (a read model could hide a second one). */
  const creditNotes = async (invoiceId: string) =>
    (
      await db.query(
        `select data->>'reference' as reference from es.events
          where stream_id = $1 and event_type = 'FamilyCreditNoteIssued'`,
        [`family-invoice-${invoiceId}`],
      )
    ).rows.map((row) => row.reference as string);
  const eventsOfType = async (type: string, streamId: string) =>
    Number(
      (await db.query('select count(*) from es.events where event_type = $1 and stream_id = $2', [type, streamId]))
        .rows[0].count,
    );
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

  useProductWithFaults((started) => {
    ({ product, db, admin } = started);
  });

  it('a cancel that died after its append still credits every invoice, once, and its retry answers 200', async () => {
    const eventId = await newEvent();
    const invoices: { id: string; reference: string }[] = [];
    for (const email of ['c1@example.com', 'c2@example.com', 'c3@example.com']) {
      invoices.push(await invoice([await book(eventId, email)]));
    }
    const commandId = randomUUID();
    crashAfterAppend(commandId, 'workshop-event-');
    expect((await post('/api/events/cancel', { id: eventId, commandId })).statusCode).toBe(500);
    injectFaults(undefined);
    // Nobody retried: the reactor credits each invoice all the same.
    await vi.waitFor(
      async () => {
        for (const { id } of invoices) expect(await creditNotes(id)).toHaveLength(1);
      },
      { timeout: 60_000 },
    );
    const retried = await ok('/api/events/cancel', { id: eventId, commandId });
    expect(retried.event.cancelled).toBe(true);
    // The UI's second click (a new id) changes nothing either.
    await ok('/api/events/cancel', { id: eventId });
    const references: string[] = [];
    for (const { id } of invoices) references.push(...(await creditNotes(id)));
    expect(references).toHaveLength(3);
    expect(new Set(references).size).toBe(3);
  });

  it('a delete that died after its append credits its invoice; a retry and a second click add nothing', async () => {
    const eventId = await newEvent();
    const registrationId = await book(eventId, 'delete@example.com');
    const { id } = await invoice([registrationId]);
    const commandId = randomUUID();
    crashAfterAppend(commandId, 'workshop-event-');
    expect((await post('/api/events/delete', { eventId, registrationId, commandId })).statusCode).toBe(500);
    injectFaults(undefined);
    await vi.waitFor(async () => expect(await creditNotes(id)).toHaveLength(1), { timeout: 60_000 });
    await ok('/api/events/delete', { eventId, registrationId, commandId });
    await ok('/api/events/delete', { eventId, registrationId });
    expect(await creditNotes(id)).toHaveLength(1);
    // Freed: the account no longer holds it as invoiced.
    const freed = await db.query(
      "select count(*) from es.events where event_type = 'WorkshopInvoiceCredited' and data->>'invoiceId' = $1",
      [id],
    );
    expect(Number(freed.rows[0].count)).toBe(1);
  });

  it('a crash inside the crediting step is retried by the reactor and ends in one credit note per invoice', async () => {
    const eventId = await newEvent();
    const { id } = await invoice([await book(eventId, 'inside@example.com')]);
    let crashes = 0;
    injectFaults({
      at: (fault: FaultStep) => {
        // The reactor's step dies once right after it took the credit note's number.
        if (fault.step === 'appended' && fault.streamId === 'family-invoice-sequence' && crashes++ === 0) {
          throw new Error('the reactor died here');
        }
      },
    });
    await ok('/api/events/cancel', { id: eventId });
    await vi.waitFor(async () => expect(await creditNotes(id)).toHaveLength(1), { timeout: 60_000 });
    expect(crashes).toBeGreaterThan(0);
    // One number taken for the note, however often its step ran.
    const numbers = await db.query(
      `select count(*) from es.events where stream_id = 'family-invoice-sequence'
        and data->>'documentId' = (select data->>'creditNoteId' from es.events
          where stream_id = $1 and event_type = 'FamilyCreditNoteIssued')`,
      [`family-invoice-${id}`],
    );
    expect(Number(numbers.rows[0].count)).toBe(1);
  });

  it('a booking erased before its event is cancelled still has its invoice credited (accounts are keyed at booking)', async () => {
    const eventId = await newEvent();
    const registrationId = await book(eventId, 'erased@example.com');
    const { id } = await invoice([registrationId]);
    await ok(`/api/workshops/registrations/erase/${registrationId}`, {
      reason: 'Asked to be forgotten',
      confirm: true,
    });
    await ok('/api/events/cancel', { id: eventId });
    await vi.waitFor(async () => expect(await creditNotes(id)).toHaveLength(1), { timeout: 60_000 });
  });

  it('an erased booking cannot be invoiced (again), whatever its address now reads', async () => {
    const eventId = await newEvent();
    const registrationId = await book(eventId, 'twice@example.com');
    await ok(`/api/workshops/registrations/erase/${registrationId}`, {
      reason: 'Asked to be forgotten',
      confirm: true,
    });
    const refused = await post('/api/events/confirmInvoice', { registrationIds: [registrationId], discountAmount: 0 });
    expect(refused.statusCode).toBe(409);
  });

  it('a move that died after the move in is completed by the reactor: the child is on one event only; its retry answers 200', async () => {
    const fromEventId = await newEvent();
    const toEventId = await newEvent();
    const registrationId = await book(fromEventId, 'move@example.com');
    const commandId = randomUUID();
    crashAfterAppend(commandId, `workshop-event-${toEventId}`);
    const move = { fromEventId, registrationId, toEventId };
    expect((await post('/api/events/move', { ...move, commandId })).statusCode).toBe(500);
    injectFaults(undefined);
    await vi.waitFor(
      async () => expect(await eventsOfType('WorkshopRegistrationMovedOut', `workshop-event-${fromEventId}`)).toBe(1),
      { timeout: 60_000 },
    );
    const retried = await ok('/api/events/move', { ...move, commandId });
    expect(retried.registration).toEqual({ id: registrationId, eventId: toEventId });
    // A retry after it completed (a new id too: the user clicked again) answers the move, never 404.
    expect((await ok('/api/events/move', move)).registration).toEqual({ id: registrationId, eventId: toEventId });
    expect(await eventsOfType('WorkshopRegistrationMade', `workshop-event-${toEventId}`)).toBe(1);
    expect(await eventsOfType('WorkshopRegistrationMovedOut', `workshop-event-${fromEventId}`)).toBe(1);
  });

  it('an invoice confirmed while its registration was being deleted is credited as soon as it is issued', async () => {
    const eventId = await newEvent();
    const registrationId = await book(eventId, 'race@example.com');
    let reached!: () => void;
    const atCheck = new Promise<void>((resolve) => {
      reached = resolve;
    });
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const remove = onRacePoint('workshopInvoice.checked', async () => {
      reached();
      await held;
    });
    try {
      // The confirmation has read the registration; the delete lands (and its reaction finds nothing invoiced).
      const confirming = ok('/api/events/confirmInvoice', { registrationIds: [registrationId], discountAmount: 0 });
      await atCheck;
      await ok('/api/events/delete', { eventId, registrationId });
      release();
      const { invoice: confirmed } = await confirming;
      await vi.waitFor(async () => expect(await creditNotes(confirmed.id)).toHaveLength(1), { timeout: 60_000 });
    } finally {
      remove();
    }
  });

  it('a registration of a cancelled event is not invoiced', async () => {
    const eventId = await newEvent();
    const registrationId = await book(eventId, 'cancelled-first@example.com');
    await ok('/api/events/cancel', { id: eventId });
    const refused = await post('/api/events/confirmInvoice', { registrationIds: [registrationId], discountAmount: 0 });
    expect(refused.statusCode).toBe(409);
  });

  it('one command id sent for two events books two registrations, never one id twice', async () => {
    const commandId = randomUUID();
    const first = await request(await newEvent(), 'same-id@example.com', commandId);
    const second = await request(await newEvent(), 'same-id@example.com', commandId);
    expect(first).not.toBe(second);
  });

  it('an invoice whose booker has a 120 + 100 character name is issued: what the invoice needs is checked before anything is written', async () => {
    const eventId = await newEvent();
    const booked = await ok('/api/events/register', {
      eventId,
      ...booking('long@example.com', 'L'.repeat(100)),
      contact: { ...booking('long@example.com').contact, firstName: 'F'.repeat(120), lastName: 'L'.repeat(100) },
    });
    const { id, reference } = await invoice([booked.registration.id]);
    expect(reference).toMatch(/\d{5}$/);
    const issued = await db.query(
      "select count(*) from es.events where stream_id = $1 and event_type = 'FamilyInvoiceIssued'",
      [`family-invoice-${id}`],
    );
    expect(Number(issued.rows[0].count)).toBe(1);
  });
});
