import { randomUUID } from 'node:crypto';
import type { ConsultationRowView, EventRegistrationsAnswer } from '@agency/contracts';
import { comparePositions } from '@agency/platform';
import { readModels, rebuildAsAFreshProcess } from '@agency/scripts/testing/database-dump';
import { type FaultStep, injectFaults } from '@agency/scripts/testing/product-with-faults';
import { startTestProduct, TEST_ADMIN, type TestProduct } from '@agency/scripts/testing/test-product';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

type Json = Record<string, unknown>;
type Fault = FaultStep;

const contact = (firstName: string, lastName: string) => ({
  firstName,
  lastName,
  address: ['1 High Street'],
  postcode: 'OX1 1AA',
  email: `${firstName}.${lastName}@example.com`.toLowerCase(),
  phone: [{ type: 'Mobile', number: '07700 900001' }],
});

const booking = (email: string) => ({
  contact: {
    firstName: 'Jo',
    lastName: 'Lee',
    address: ['1 High Street', 'Oxford'],
    postcode: 'OX1 1AA',
    email,
    phone: '07700 900000',
  },
  children: [{ firstName: 'Ann', lastName: 'Lee', school: 'St Mary', schoolYear: '5', allergies: '' }],
});

/**
 * The workflows that follow a command (credit notes after a cancel or a delete, the move out of the
 * old event, a consultation's invoice and credit notes) run a moment later in a reactor. While one
 * is held up, the query answers say it is under way; once it ran, they name what it did; and a
 * rebuild of the read models from the log gives the very rows the live projections hold.
 */
describe('workflows under way, as the query answers show them (real PostgreSQL)', () => {
  let product: TestProduct;
  let db: pg.Pool;
  let admin: ReturnType<TestProduct['api']>;
  let token: string;
  let parents = 0;
  let events = 0;

  const ok = async (url: string, payload: Json) => {
    const response = await product.command.app.inject({
      method: 'POST',
      url,
      payload: { commandId: randomUUID(), ...payload },
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  };
  const book = async (eventId: string) => {
    // An admin books on the parents' behalf (a public booking waits for its address to confirm it).
    const response = await product.command.app.inject({
      method: 'POST',
      url: '/api/events/register',
      payload: { commandId: randomUUID(), eventId, ...booking(`parent${++parents}@example.com`) },
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.statusCode, response.body).toBe(200);
    return response.json().registration.id as string;
  };
  const newEvent = async () =>
    (
      await ok('/api/events', {
        description: `Under way day ${++events}`,
        dateTime: '2099-08-20T10:00',
        durationMinutes: 60,
        price: 20,
        capacity: 10,
        location: 'Hall',
      })
    ).event.id as string;
  const invoice = async (registrationId: string) => {
    const { invoice } = await ok('/api/events/confirmInvoice', {
      registrationIds: [registrationId],
      discountAmount: 0,
    });
    expect(invoice.reference).not.toBeNull();
    return invoice as { id: string; reference: string };
  };
  const registrationsOf = (eventId: string): Promise<EventRegistrationsAnswer> =>
    admin.get(`/api/events/registrations/${eventId}`);
  const consultations = async (): Promise<ConsultationRowView[]> =>
    (await admin.get('/api/consultations')).consultations;
  const consultation = async (id: string) => {
    const row = (await consultations()).find((c) => c.id === id);
    if (!row) throw new Error(`consultation ${id} is not listed`);
    return row;
  };

  /**
   * The reactors' document numbers go down: the first number taken fails its step (so the reactor
   * is reported stopped and commands answer at once), and every later one waits until `restore`.
   * A step that fails after its append is found done on the retry, so only waiting holds a reactor.
   */
  function outage() {
    let release = () => {};
    const restored = new Promise<void>((resolve) => {
      release = resolve;
    });
    let failed = false;
    injectFaults({
      at: async (fault: Fault) => {
        if (fault.step !== 'appended' || fault.streamId !== 'family-invoice-sequence') return;
        if (!failed) {
          failed = true;
          throw new Error('down');
        }
        await restored;
      },
    });
    return () => {
      injectFaults(undefined);
      release();
    };
  }

  const positionOf = (row: { commit_position: string; prepare_position: string }) => ({
    commit: BigInt(row.commit_position),
    prepare: BigInt(row.prepare_position),
  });
  /** Every projection has applied the whole log (so far). */
  const projected = async () => {
    const head = await product.command.deps.store.head();
    await vi.waitFor(
      async () => {
        const projections = await db.query('select * from read.projection_checkpoints');
        for (const row of projections.rows)
          expect(comparePositions(positionOf(row), head), row.name).toBeGreaterThanOrEqual(0);
      },
      { timeout: 60_000, interval: 50 },
    );
  };
  /** Every reactor has reacted to the whole log, unstopped, and every projection has applied it. */
  const idle = async () => {
    await vi.waitFor(
      async () => {
        const head = await product.command.deps.store.head();
        const reactors = await db.query('select * from command.reactor_checkpoints');
        for (const row of reactors.rows) {
          expect(row.failure, row.name).toBeNull();
          expect(comparePositions(positionOf(row), head), row.name).toBeGreaterThanOrEqual(0);
        }
      },
      { timeout: 60_000, interval: 100 },
    );
    await projected();
  };

  /** A rebuild from the log (as a fresh process reads it) makes exactly the rows the live projections hold. */
  async function expectRebuildMatches() {
    await idle();
    const live = await readModels(db);
    await rebuildAsAFreshProcess(product, db);
    expect(await readModels(db)).toEqual(live);
    return live;
  }

  beforeAll(async () => {
    product = await startTestProduct();
    db = new pg.Pool({ connectionString: product.databaseUrl });
    token = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
    admin = product.api(token);
  });
  afterEach(() => {
    injectFaults(undefined);
  });
  afterAll(async () => {
    await db?.end();
    await product?.dispose();
  });

  it('workshops: a cancel, a delete and moves show as under way while the reactor is held, then as done', async () => {
    // Cancelled: three invoices, one a registration each.
    const cancelled = await newEvent();
    const cancelledInvoices = [];
    for (let i = 0; i < 3; i++) cancelledInvoices.push(await invoice(await book(cancelled)));
    // Deleted: one invoiced registration.
    const deletedFrom = await newEvent();
    const deleted = await book(deletedFrom);
    const deletedInvoice = await invoice(deleted);
    // Moved: one registration to another event.
    const [moveFrom, moveTo] = [await newEvent(), await newEvent()];
    const moved = await book(moveFrom);
    // Cancelled while one of its registrations (invoiced) is moving away: its invoice goes with it.
    const [leaving, arriving] = [await newEvent(), await newEvent()];
    const leaver = await book(leaving);
    const leaverInvoice = await invoice(leaver);
    const stayerInvoice = await invoice(await book(leaving));

    const restore = outage();
    await ok('/api/events/cancel', { id: cancelled });
    // The first credit note fails and is retried; the second waits: one of three is credited.
    await vi.waitFor(
      async () => expect((await registrationsOf(cancelled)).event.credits?.creditNotes).toHaveLength(1),
      { timeout: 60_000 },
    );
    // The reactor is held there: whatever follows waits behind it.
    await ok('/api/events/delete', { eventId: deletedFrom, registrationId: deleted });
    await ok('/api/events/move', { fromEventId: moveFrom, registrationId: moved, toEventId: moveTo });
    await ok('/api/events/move', { fromEventId: leaving, registrationId: leaver, toEventId: arriving });
    await ok('/api/events/cancel', { id: leaving });

    const held = await registrationsOf(cancelled);
    expect(held.event.cancelled).toBe(true);
    expect(held.event.credits?.invoices).toBe(3);
    expect(held.event.credits?.creditNotes).toEqual([
      { id: expect.any(String), reference: expect.stringMatching(/^CN/) },
    ]);

    const deletion = await registrationsOf(deletedFrom);
    expect(deletion.registrations).toEqual([]);
    expect(deletion.crediting).toEqual([
      {
        id: deleted,
        parent: 'Jo Lee',
        children: ['Ann Lee'],
        invoiceId: deletedInvoice.id,
        invoiceRef: deletedInvoice.reference,
      },
    ]);

    // On both events until the move-out: each list says where it goes, or comes from.
    const [from, to] = [await registrationsOf(moveFrom), await registrationsOf(moveTo)];
    expect(from.registrations.map((r) => [r.id, r.moving])).toEqual([
      [moved, { direction: 'to', eventId: moveTo, event: to.event.description }],
    ]);
    expect(to.registrations.map((r) => [r.id, r.moving])).toEqual([
      [moved, { direction: 'from', eventId: moveFrom, event: from.event.description }],
    ]);

    // Cancelled while its registration was moving away: only the one that stays is to be credited.
    expect((await registrationsOf(leaving)).event.credits).toEqual({ invoices: 1, creditNotes: [] });

    // What is under way is in the log already: a rebuild comes out the same.
    await projected();
    const whileHeld = await readModels(db);
    expect(whileHeld.workshop_moves_under_way).toHaveLength(2);
    await rebuildAsAFreshProcess(product, db);
    expect(await readModels(db)).toEqual(whileHeld);

    restore();
    await vi.waitFor(
      async () => {
        const done = await registrationsOf(cancelled);
        expect(done.event.credits?.invoices).toBe(3);
        expect(done.event.credits?.creditNotes).toHaveLength(3);
        expect((await registrationsOf(deletedFrom)).crediting).toEqual([]);
        expect((await registrationsOf(moveFrom)).registrations).toEqual([]);
        expect((await registrationsOf(moveTo)).registrations.map((r) => [r.id, r.moving])).toEqual([[moved, null]]);
        expect((await registrationsOf(leaving)).event.credits?.creditNotes).toHaveLength(1);
      },
      { timeout: 60_000 },
    );

    // The notes named are those of the event's invoices, read from the log itself.
    const notes = await db.query(
      `select data->>'creditNoteId' as id, data->>'reference' as reference from es.events
        where event_type = 'FamilyCreditNoteIssued' and stream_id = any($1) order by 2`,
      [cancelledInvoices.map(({ id }) => `family-invoice-${id}`)],
    );
    expect((await registrationsOf(cancelled)).event.credits?.creditNotes).toEqual(notes.rows);
    // The invoice of the registration that moved away was not credited; the one that stayed was.
    const credited = await db.query(
      "select stream_id from es.events where event_type = 'FamilyCreditNoteIssued' and stream_id = any($1)",
      [[`family-invoice-${leaverInvoice.id}`, `family-invoice-${stayerInvoice.id}`]],
    );
    expect(credited.rows).toEqual([{ stream_id: `family-invoice-${stayerInvoice.id}` }]);
    const arrived = await registrationsOf(arriving);
    expect(arrived.registrations.map((r) => [r.id, r.invoiceRef, r.moving])).toEqual([
      [leaver, leaverInvoice.reference, null],
    ]);

    const rebuilt = await expectRebuildMatches();
    expect(rebuilt.workshop_cancellation_invoices.length).toBeGreaterThanOrEqual(4);
    expect(rebuilt.workshop_moves_under_way).toEqual([]);
  });

  it('consultations: "issuing invoice" and "issuing credit note" while the reactor is held, then the documents', async () => {
    const { client } = await admin.post('/api/clients/contact', contact('Cora', 'Underway'));
    const { child } = await admin.post(`/api/clients/child/${client.id}`, {
      firstName: 'Cal',
      lastName: 'Underway',
      dob: '2014-01-01',
    });
    const record = async (date: string, fields: Json = {}) =>
      (await ok('/api/consultations', { client: client.id, child: child.id, date, ...fields })).consultation as {
        id: string;
        invoiceReference: string | null;
      };
    const toCancel = await record('2026-03-02');
    const toChange = await record('2026-03-03');
    expect(toCancel.invoiceReference).not.toBeNull();
    expect((await consultation(toCancel.id)).underWay).toBeNull();

    const restore = outage();
    // A change after issue: its invoice is credited (the number that fails, then is retried), and
    // a new one issued (the number that waits), so the reactor is held with this one half done.
    await record('2026-03-03', { id: toChange.id, amount: 200 });
    await vi.waitFor(
      async () => expect((await consultation(toChange.id)).replaced[0]?.creditNoteReference).toMatch(/^CN-/),
      { timeout: 60_000 },
    );
    const recorded = await record('2026-03-04');
    expect(recorded.invoiceReference).toBeNull();
    await ok('/api/consultations/cancel', { id: toCancel.id });

    expect(await consultation(recorded.id)).toMatchObject({ invoiceReference: null, underWay: 'issuing invoice' });
    expect(await consultation(toChange.id)).toMatchObject({ invoiceReference: null, underWay: 'issuing invoice' });
    expect(await consultation(toCancel.id)).toMatchObject({
      cancelled: true,
      invoiceReference: toCancel.invoiceReference,
      creditNoteReference: null,
      underWay: 'issuing credit note',
    });

    restore();
    await vi.waitFor(
      async () => {
        for (const id of [recorded.id, toChange.id, toCancel.id]) expect((await consultation(id)).underWay).toBeNull();
      },
      { timeout: 60_000 },
    );
    expect((await consultation(recorded.id)).invoiceReference).not.toBeNull();
    expect((await consultation(toChange.id)).invoiceReference).not.toBeNull();
    expect((await consultation(toCancel.id)).creditNoteReference).toMatch(/^CN/);

    await expectRebuildMatches();
  });
});
