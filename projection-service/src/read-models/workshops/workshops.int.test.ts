import { randomUUID } from 'node:crypto';
import type { RegistrationDetails } from '@agency/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GivenEvent, projectionTestBed } from '../testing/projection-test-bed';
import { workshopsProjection } from './projection';

const stream = (eventId: string) => `workshop-event-${eventId}`;

function scheduled(eventId: string): GivenEvent {
  return {
    streamId: stream(eventId),
    type: 'WorkshopEventScheduled',
    data: {
      eventId,
      description: `Day ${eventId.slice(0, 4)}`,
      dateTime: '2099-07-20T10:00',
      durationMinutes: 60,
      pricePence: 2000,
      capacity: 10,
      location: 'Hall',
    },
  };
}

function made(eventId: string, registrationId: string, movedFrom: string | null = null): GivenEvent {
  const data: RegistrationDetails = {
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
    movedFrom,
  };
  return { streamId: stream(eventId), type: 'WorkshopRegistrationMade', data };
}

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
