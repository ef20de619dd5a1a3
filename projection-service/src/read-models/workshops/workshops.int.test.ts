import { randomUUID } from 'node:crypto';
import { ERASED, type RegistrationDetails, type WorkshopEventDetails } from '@agency/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GivenEvent, projectionTestBed } from '../testing/projection-test-bed';
import { workshopsProjection } from './projection';

const stream = (eventId: string) => `workshop-event-${eventId}`;

function eventDetails(eventId: string): WorkshopEventDetails {
  return {
    eventId,
    description: `Day ${eventId.slice(0, 4)}`,
    dateTime: '2099-07-20T10:00',
    durationMinutes: 60,
    pricePence: 2000,
    capacity: 10,
    location: 'Hall',
  };
}

const scheduled = (eventId: string): GivenEvent => ({
  streamId: stream(eventId),
  type: 'WorkshopEventScheduled',
  data: eventDetails(eventId),
});

function registration(
  eventId: string,
  registrationId: string,
  changes: Partial<RegistrationDetails> = {},
): RegistrationDetails {
  return {
    eventId,
    registrationId,
    clientId: null,
    contact: {
      firstName: 'Jo',
      lastName: 'Lee',
      address: ['1 High Street'],
      postcode: 'OX1 1AA',
      email: 'jo@example.com',
      phone: '07700 900000',
    },
    children: [{ firstName: 'Ann', lastName: 'Lee', school: '', schoolYear: '', allergies: '' }],
    places: 1,
    comments: '',
    status: 'registered',
    movedFrom: null,
    ...changes,
  };
}

const made = (
  eventId: string,
  registrationId: string,
  movedFrom: string | null = null,
  changes: Partial<RegistrationDetails> = {},
): GivenEvent => ({
  streamId: stream(eventId),
  type: 'WorkshopRegistrationMade',
  data: registration(eventId, registrationId, { movedFrom, ...changes }),
});

const ref = (eventId: string, registrationId: string) => ({ eventId, registrationId });
const cancelled = (eventId: string): GivenEvent => ({
  streamId: stream(eventId),
  type: 'WorkshopEventCancelled',
  data: { eventId },
});
const confirmed = (invoiceId: string, ...registrations: { eventId: string; registrationId: string }[]): GivenEvent => ({
  streamId: `workshop-account-${invoiceId}`,
  type: 'WorkshopInvoiceConfirmed',
  data: { invoiceId, registrations: registrations.map((r) => ({ ...r, pricePence: 2000 })), discountPence: 0 },
});

/**
 * What the workshops read model keeps of the workflows that follow its commands, from the events
 * alone: the moves whose move-out is not recorded yet, and which invoices a cancelled event's
 * crediting workflow is to credit.
 */
describe('workshops read model: workflows under way', () => {
  let bed: Awaited<ReturnType<typeof projectionTestBed>>;
  beforeAll(async () => {
    bed = await projectionTestBed([workshopsProjection]);
  });
  afterAll(() => bed.close());

  const movesOf = (registrationId: string) =>
    bed.rows('select from_event_id, to_event_id from workshop_moves_under_way where registration_id = $1 order by 1', [
      registrationId,
    ]);
  const toCredit = async (eventId: string) =>
    (
      await bed.rows('select invoice_id from workshop_cancellation_invoices where event_id = $1 order by 1', [eventId])
    ).map((row) => row.invoice_id);

  it('a move is under way from its move in until its move-out, and none is left when it was deleted meanwhile', async () => {
    const [a, b, c, r, gone] = [randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    await bed.given(scheduled(a), scheduled(b), scheduled(c), made(a, r), made(a, gone), made(b, r, a));
    expect(await movesOf(r)).toEqual([{ from_event_id: a, to_event_id: b }]);

    // On to a third event before it left the first: two moves under way.
    await bed.given(made(c, r, b));
    expect(await movesOf(r)).toHaveLength(2);
    expect(await movesOf(r)).toEqual(
      expect.arrayContaining([
        { from_event_id: a, to_event_id: b },
        { from_event_id: b, to_event_id: c },
      ]),
    );
    await bed.given(
      { streamId: stream(a), type: 'WorkshopRegistrationMovedOut', data: { ...ref(a, r), toEventId: b } },
      { streamId: stream(b), type: 'WorkshopRegistrationMovedOut', data: { ...ref(b, r), toEventId: c } },
    );
    expect(await movesOf(r)).toEqual([]);

    // Deleted from the old event before the move in: nothing is left to move out.
    await bed.given({ streamId: stream(a), type: 'WorkshopRegistrationDeleted', data: ref(a, gone) }, made(b, gone, a));
    expect(await movesOf(gone)).toEqual([]);
  });

  it("a cancelled event is to credit its registrations' invoices, not one moving away, and one confirmed after", async () => {
    const [event, elsewhere] = [randomUUID(), randomUUID()];
    const [stays, waits, leaves, late, deleted] = [
      randomUUID(),
      randomUUID(),
      randomUUID(),
      randomUUID(),
      randomUUID(),
    ];
    await bed.given(
      scheduled(event),
      scheduled(elsewhere),
      made(event, stays),
      made(event, waits),
      made(event, leaves),
      made(event, late),
      made(event, deleted),
      // One invoice for two of its registrations counts once.
      confirmed('inv-both', ref(event, stays), ref(event, waits)),
      confirmed('inv-leaves', ref(event, leaves)),
      confirmed('inv-deleted', ref(event, deleted)),
      { streamId: stream(event), type: 'WorkshopRegistrationDeleted', data: ref(event, deleted) },
      made(elsewhere, leaves, event),
      cancelled(event),
      // A confirmation that raced the cancellation lands after it.
      confirmed('inv-late', ref(event, late)),
    );
    expect(await toCredit(event)).toEqual(['inv-both', 'inv-late']);
    expect(await toCredit(elsewhere)).toEqual([]);
  });

  it('comes out the same when rebuilt from the events', async () => {
    const before = await bed.snapshot();
    await bed.rebuild([workshopsProjection]);
    expect(await bed.snapshot()).toEqual(before);
  });
});

describe('workshops read model: events, bookings and invoices', () => {
  let bed: Awaited<ReturnType<typeof projectionTestBed>>;
  beforeAll(async () => {
    bed = await projectionTestBed([workshopsProjection]);
  });
  afterAll(() => bed.close());

  const eventRow = async (eventId: string) =>
    (
      await bed.rows(
        `select description, to_char(date_time, 'YYYY-MM-DD"T"HH24:MI') as date_time, duration_minutes,
                price_pence::int as price, capacity, location, cancelled
           from workshop_events where id = $1`,
        [eventId],
      )
    )[0];
  const registrationsOf = (eventId: string) =>
    bed.rows(
      `select id, client_id, contact, email, children, places, comments, status, moved_from, moved_to
         from workshop_registrations where event_id = $1 order by seq`,
      [eventId],
    );

  it('holds each event as scheduled, then as changed, and marks it cancelled', async () => {
    const eventId = randomUUID();
    await bed.given(scheduled(eventId));
    expect(await eventRow(eventId)).toEqual({
      description: `Day ${eventId.slice(0, 4)}`,
      date_time: '2099-07-20T10:00',
      duration_minutes: 60,
      price: 2000,
      capacity: 10,
      location: 'Hall',
      cancelled: false,
    });
    const changed = { ...eventDetails(eventId), description: 'Science day', capacity: 12, location: 'Lab' };
    await bed.given({ streamId: stream(eventId), type: 'WorkshopEventChanged', data: changed }, cancelled(eventId));
    expect(await eventRow(eventId)).toMatchObject({ description: 'Science day', capacity: 12, location: 'Lab' });
    expect(await eventRow(eventId)).toMatchObject({ cancelled: true });
  });

  it("lists an event's bookings in the order they came, each with its status", async () => {
    const [eventId, other] = [randomUUID(), randomUUID()];
    const [first, second, moved, deleted] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    await bed.given(
      scheduled(eventId),
      scheduled(other),
      made(eventId, first),
      made(eventId, second, null, { status: 'waitlisted', places: 2 }),
      made(eventId, moved),
      made(eventId, deleted),
      { streamId: stream(eventId), type: 'WorkshopRegistrationPlaced', data: ref(eventId, second) },
      { streamId: stream(eventId), type: 'WorkshopRegistrationDeleted', data: ref(eventId, deleted) },
      made(other, moved, eventId),
      {
        streamId: stream(eventId),
        type: 'WorkshopRegistrationMovedOut',
        data: { ...ref(eventId, moved), toEventId: other },
      },
    );
    const rows = await registrationsOf(eventId);
    expect(rows.map((row) => [row.id, row.status, row.places, row.moved_to])).toEqual([
      [first, 'registered', 1, null],
      [second, 'registered', 2, null],
      [moved, 'moved', 1, other],
      [deleted, 'deleted', 1, null],
    ]);
    // The booking's details as made; the e-mail kept lower-cased and trimmed for the search by address.
    expect(rows[0]).toMatchObject({
      client_id: null,
      contact: registration(eventId, first).contact,
      email: 'jo@example.com',
      children: registration(eventId, first).children,
      comments: '',
      moved_from: null,
    });
    expect(await registrationsOf(other)).toMatchObject([{ id: moved, status: 'registered', moved_from: eventId }]);
  });

  it('holds a public booking as requested until its address confirms it, and erases one that lapsed', async () => {
    const eventId = randomUUID();
    const [confirmedBooking, lapsed] = [randomUUID(), randomUUID()];
    const requested = (registrationId: string, held: boolean): GivenEvent => ({
      streamId: stream(eventId),
      type: 'WorkshopBookingRequested',
      data: {
        eventId,
        registrationId,
        contact: { ...registration(eventId, registrationId).contact, email: ' Sam@Example.com ' },
        children: [{ firstName: 'Kit', lastName: 'Ray', school: 'Oxford High', schoolYear: '5', allergies: 'Nuts' }],
        places: 1,
        comments: 'Pick-up at 3',
        held,
        expiresAt: '2099-07-01T10:00:00.000Z',
        linkId: randomUUID(),
      },
    });
    await bed.given(scheduled(eventId), requested(confirmedBooking, true), requested(lapsed, false));
    expect((await registrationsOf(eventId)).map((row) => [row.status, row.email, row.client_id])).toEqual([
      ['requested', 'sam@example.com', null],
      ['requested_waitlist', 'sam@example.com', null],
    ]);

    // Confirmed: linked to the family of its address, with its details as sealed for that family.
    await bed.given(made(eventId, confirmedBooking, null, { clientId: 'client-9' }), {
      streamId: stream(eventId),
      type: 'WorkshopBookingLapsed',
      data: ref(eventId, lapsed),
    });
    const [kept, gone] = await registrationsOf(eventId);
    expect(kept).toMatchObject({
      id: confirmedBooking,
      status: 'registered',
      client_id: 'client-9',
      email: 'jo@example.com',
    });
    expect(gone).toMatchObject({
      id: lapsed,
      status: 'lapsed',
      contact: {
        firstName: ERASED,
        lastName: ERASED,
        address: [ERASED],
        postcode: ERASED,
        email: ERASED,
        phone: ERASED,
      },
      email: ERASED.toLowerCase(),
      children: [],
      comments: ERASED,
    });
  });

  it("erases an erased family's bookings, and knows which invoice bills a booking until it is credited", async () => {
    const eventId = randomUUID();
    const [family, other] = [randomUUID(), randomUUID()];
    await bed.given(
      scheduled(eventId),
      made(eventId, family, null, { clientId: 'client-erased' }),
      made(eventId, other),
      confirmed('inv-family', ref(eventId, family)),
      confirmed('inv-other', ref(eventId, other)),
      {
        streamId: 'client-client-erased',
        type: 'ClientErased',
        data: { clientId: 'client-erased', reason: 'Asked to be forgotten', erasedAt: '2099-08-01T09:00:00.000Z' },
      },
      { streamId: 'workshop-account-inv-other', type: 'WorkshopInvoiceCredited', data: { invoiceId: 'inv-other' } },
    );
    const [erased, kept] = await registrationsOf(eventId);
    expect(erased).toMatchObject({ id: family, children: [], comments: ERASED, contact: { firstName: ERASED } });
    expect(kept).toMatchObject({ id: other, contact: { firstName: 'Jo' } });
    expect(
      await bed.rows(
        'select registration_id, invoice_id, price_pence::int as price from workshop_invoiced where registration_id = any($1)',
        [[family, other]],
      ),
    ).toEqual([{ registration_id: family, invoice_id: 'inv-family', price: 2000 }]);
  });

  it('comes out the same when rebuilt from the events', async () => {
    const before = await bed.snapshot();
    await bed.rebuild([workshopsProjection]);
    expect(await bed.snapshot()).toEqual(before);
  });
});
