import { LIMITS, type WorkshopEvent } from '@agency/contracts';
import { describe, expect, it } from 'vitest';
import { familyInvoiceDecider } from '../family-invoice/family-invoice';
import { specFor } from '../testing/given-when-then';
import type { Actor } from '../timesheet/timesheet';
import {
  accountDecider,
  bookingOutlook,
  type NewRegistration,
  placesLeftText,
  registrationLine,
  timeSpan,
  type WorkshopCommand,
  waitingListSentence,
  workshopDecider,
} from './workshop';

const admin: Actor = { role: 'admin' };
const tutor: Actor = { role: 'tutor', tutorId: 't1' };
const given = specFor(workshopDecider);
const event = {
  eventId: 'e1',
  description: 'Easter science',
  dateTime: '2026-04-02T10:00',
  durationMinutes: 180,
  pricePence: 4_000,
  capacity: 3,
  location: 'Hall',
};
const scheduled: WorkshopEvent = { type: 'WorkshopEventScheduled', data: event };
const child = { firstName: 'Ann', lastName: 'Lee', school: 'St Mary', schoolYear: '5', allergies: 'Nuts' };
const booking = (registrationId: string, children = 1): NewRegistration => ({
  registrationId,
  clientId: null,
  contact: {
    firstName: 'Jo',
    lastName: 'Lee',
    address: ['1 High St'],
    postcode: 'OX1 1AA',
    email: 'jo@example.com',
    phone: '07700 900000',
  },
  children: Array.from({ length: children }, () => child),
  comments: '',
});
const register = (registrationId: string, children = 1): WorkshopCommand => ({
  type: 'Register',
  registration: booking(registrationId, children),
  nowLocal: '2026-03-01T09:00',
});
const made = (registrationId: string, children: number, status: 'registered' | 'waitlisted'): WorkshopEvent => ({
  type: 'WorkshopRegistrationMade',
  data: { ...booking(registrationId, children), eventId: 'e1', places: children, status, movedFrom: null },
});

describe('workshop events', () => {
  it('an admin schedules one; nobody else may', () => {
    given([]).when({ type: 'ScheduleEvent', event, actor: admin }).thenEvents([scheduled]);
    given([]).when({ type: 'ScheduleEvent', event, actor: tutor }).thenRefused('forbidden');
  });

  it('refuses a capacity below the places taken', () => {
    given([scheduled, made('r1', 2, 'registered')])
      .when({ type: 'ChangeEvent', event: { ...event, capacity: 1 }, actor: admin })
      .thenRefused('invalid', /2 places are taken/);
  });
});

describe('the words for places: what a booking comes to, said before and after', () => {
  it('one place, never "1 places"', () => {
    expect(placesLeftText(1)).toBe('1 place left');
    expect(placesLeftText(2)).toBe('2 places left');
  });

  it('a booking gets places for all its children, or waits whole: "full" only when no place is left', () => {
    expect(bookingOutlook(5, 2)).toEqual({ placed: true, text: '5 places are left: the 2 children get places.' });
    expect(bookingOutlook(1, 1)).toEqual({ placed: true, text: '1 place is left: the child gets a place.' });
    expect(bookingOutlook(2, 3)).toEqual({
      placed: false,
      text: '2 places are left: a booking of 3 children goes on the waiting list. A booking takes places for all its children or goes on the waiting list whole.',
    });
    expect(bookingOutlook(0, 1)).toEqual({
      placed: false,
      text: 'The workshop is full: a booking goes on the waiting list.',
    });
    expect(waitingListSentence('Kites on 1 Aug 2099 10:00', 2, 3)).toBe(
      'Only 2 places were left at Kites on 1 Aug 2099 10:00, and a booking takes places for all its children or none, so your booking of 3 children is on the waiting list.',
    );
    expect(waitingListSentence('Kites', 0, 3, 'the booking')).toBe(
      'Kites is full, so the booking is on the waiting list.',
    );
  });

  it('a workshop runs from its start to its start plus its duration', () => {
    expect(timeSpan('2099-07-20T10:00', 90)).toBe('10:00 – 11:30');
    expect(timeSpan('2099-07-20T22:30', 120)).toBe('22:30 – 21 Jul 2099 00:30');
  });
});

describe('capacity and the waiting list', () => {
  it('a booking within the capacity gets places', () => {
    given([scheduled, made('r1', 2, 'registered')])
      .when(register('r2', 1))
      .thenEvents([made('r2', 1, 'registered')]);
  });

  it('a booking past the capacity goes on the waiting list, which takes no place', () => {
    given([scheduled, made('r1', 2, 'registered')])
      .when(register('r2', 2))
      .thenEvents([made('r2', 2, 'waitlisted')]);
    given([scheduled, made('r1', 2, 'registered'), made('r2', 2, 'waitlisted')])
      .when(register('r3', 1))
      .thenEvents([made('r3', 1, 'registered')]);
  });

  it('a waiting-list registration is given a place once one is free, not before', () => {
    const full = [scheduled, made('r1', 2, 'registered'), made('r2', 2, 'waitlisted')];
    given(full)
      .when({ type: 'Place', registrationId: 'r2', actor: admin })
      .thenRefused('conflict', /no free place/);
    given([...full, { type: 'WorkshopRegistrationDeleted', data: { eventId: 'e1', registrationId: 'r1' } }])
      .when({ type: 'Place', registrationId: 'r2', actor: admin })
      .thenEvents([{ type: 'WorkshopRegistrationPlaced', data: { eventId: 'e1', registrationId: 'r2' } }]);
  });

  it('nobody books a cancelled or past event, and a retried booking adds nothing', () => {
    given([scheduled, { type: 'WorkshopEventCancelled', data: { eventId: 'e1' } }])
      .when(register('r1'))
      .thenRefused('conflict', /cancelled/);
    given([scheduled])
      .when({ ...register('r1'), nowLocal: '2026-04-02T10:00' } as WorkshopCommand)
      .thenRefused('conflict', /started/);
    given([scheduled, made('r1', 1, 'registered')])
      .when(register('r1'))
      .thenEvents([]);
  });
});

describe('moves and deletes', () => {
  const other = { ...event, eventId: 'e2', pricePence: 5_000 };
  const registration = { ...booking('r1', 1), places: 1, status: 'registered' as const, movedFrom: null };
  const moveIn = (invoicedPricePence: number | null): WorkshopCommand => ({
    type: 'MoveIn',
    registration,
    fromEventId: 'e1',
    invoicedPricePence,
    nowLocal: '2026-03-01T09:00',
    actor: admin,
  });

  it('a registration moves in when there is room, keeping its details', () => {
    given([{ type: 'WorkshopEventScheduled', data: other }])
      .when(moveIn(null))
      .thenEvents([{ type: 'WorkshopRegistrationMade', data: { ...registration, eventId: 'e2', movedFrom: 'e1' } }]);
  });

  it('refuses a move that would change an invoiced price, or to a full event', () => {
    given([{ type: 'WorkshopEventScheduled', data: other }])
      .when(moveIn(4_000))
      .thenRefused('conflict', /invoiced at £40.00/);
    given([
      { type: 'WorkshopEventScheduled', data: { ...other, pricePence: 4_000, capacity: 1 } },
      {
        type: 'WorkshopRegistrationMade',
        data: { ...registration, registrationId: 'x', eventId: 'e2' },
      },
    ])
      .when(moveIn(4_000))
      .thenRefused('conflict', /no room/);
  });

  it('a waiting-list registration moved where all its children fit gets places there; else it waits there', () => {
    const waiting = { ...registration, places: 2, children: [child, child], status: 'waitlisted' as const };
    const moveWaiting: WorkshopCommand = { ...moveIn(null), registration: waiting } as WorkshopCommand;
    const movedIn = (status: 'registered' | 'waitlisted'): WorkshopEvent => ({
      type: 'WorkshopRegistrationMade',
      data: { ...waiting, eventId: 'e2', status, movedFrom: 'e1' },
    });
    const taking = (places: number): WorkshopEvent => ({
      type: 'WorkshopRegistrationMade',
      data: {
        ...registration,
        registrationId: 'x',
        eventId: 'e2',
        places,
        children: Array.from({ length: places }, () => child),
      },
    });
    given([{ type: 'WorkshopEventScheduled', data: { ...other, capacity: 3 } }, taking(1)])
      .when(moveWaiting)
      .thenEvents([movedIn('registered')]);
    // One place left for two children: the booking waits whole, on the new event's waiting list.
    given([{ type: 'WorkshopEventScheduled', data: { ...other, capacity: 3 } }, taking(2)])
      .when(moveWaiting)
      .thenEvents([movedIn('waitlisted')]);
    // A registration with places still needs room for them.
    given([{ type: 'WorkshopEventScheduled', data: { ...other, capacity: 3 } }, taking(2)])
      .when({ ...moveWaiting, registration: { ...waiting, status: 'registered' } } as WorkshopCommand)
      .thenRefused('conflict', /no room/);
  });

  it('moved out or deleted, a registration leaves the event and frees its places', () => {
    given([scheduled, made('r1', 3, 'registered')])
      .when({ type: 'MoveOut', registrationId: 'r1', toEventId: 'e2', actor: admin })
      .thenEvents([
        { type: 'WorkshopRegistrationMovedOut', data: { eventId: 'e1', registrationId: 'r1', toEventId: 'e2' } },
      ]);
    const deleted: WorkshopEvent = {
      type: 'WorkshopRegistrationDeleted',
      data: { eventId: 'e1', registrationId: 'r1' },
    };
    given([scheduled, made('r1', 3, 'registered'), deleted])
      .when(register('r2', 3))
      .thenEvents([made('r2', 3, 'registered')]);
    given([scheduled, made('r1', 3, 'registered')])
      .when({ type: 'DeleteRegistration', registrationId: 'r1', actor: tutor })
      .thenRefused('forbidden');
  });
});

describe('workshop invoices and the discount', () => {
  const account = specFor(accountDecider);
  const lines = [
    { eventId: 'e1', registrationId: 'r1', pricePence: 4_000 },
    { eventId: 'e2', registrationId: 'r2', pricePence: 8_000 },
  ];
  const confirm = (discountPence: number, registrations = lines) => ({
    type: 'ConfirmWorkshopInvoice' as const,
    invoiceId: 'i1',
    registrations,
    discountPence,
    actor: admin,
  });
  const confirmed: WorkshopEvent = {
    type: 'WorkshopInvoiceConfirmed',
    data: { invoiceId: 'i1', registrations: lines, discountPence: 12_000 },
  };

  it('a discount up to the sum of the included prices is taken; above it is refused', () => {
    account([]).when(confirm(12_000)).thenEvents([confirmed]);
    account([])
      .when(confirm(12_001))
      .thenRefused('invalid', /cannot be more than £120.00/);
  });

  it('a registration is invoiced at most once, until its invoice is credited', () => {
    const again = { ...confirm(0, [lines[0] as (typeof lines)[number]]), invoiceId: 'i2' };
    account([confirmed])
      .when(again)
      .thenRefused('conflict', /invoiced already/);
    account([confirmed, { type: 'WorkshopInvoiceCredited', data: { invoiceId: 'i1' } }])
      .when(again)
      .thenEvents([
        {
          type: 'WorkshopInvoiceConfirmed',
          data: { invoiceId: 'i2', registrations: [lines[0] as (typeof lines)[number]], discountPence: 0 },
        },
      ]);
  });

  it('the family invoice totals its lines less the discount, never below 0', () => {
    const line = registrationLine(event, 2);
    expect(line).toEqual({ description: 'Easter science, 02 Apr 2026 10:00 (2 children)', amountPence: 8_000 });
    const invoice = {
      invoiceId: 'i1',
      reference: 'OTA00001',
      date: '2026-03-05',
      dueDate: '2026-03-19',
      clientId: 'registration:r1',
      billedFor: { kind: 'workshops' as const, id: 'i1' },
      billing: { name: 'Jo Lee', address: ['1 High St'], postcode: 'OX1 1AA', email: 'jo@example.com' },
      lines: [line],
    };
    const issue = specFor(familyInvoiceDecider);
    issue([])
      .when({ type: 'IssueFamilyInvoice', invoice: { ...invoice, discountPence: 8_000 } })
      .thenEvents([{ type: 'FamilyInvoiceIssued', data: { ...invoice, discountPence: 8_000, totalPence: 0 } }]);
    issue([])
      .when({ type: 'IssueFamilyInvoice', invoice: { ...invoice, discountPence: 8_001 } })
      .thenRefused('invalid', /discount/);
  });
});

describe('erasing a booking of no known family', () => {
  const erase = (registrationId: string, linkedFamily: string | null = null): WorkshopCommand => ({
    type: 'EraseRegistration',
    registrationId,
    linkedFamily,
    reason: 'Asked by the parent',
    erasedAt: '2026-03-02T10:00:00.000Z',
    actor: admin,
  });
  const erased: WorkshopEvent = {
    type: 'WorkshopRegistrationErased',
    data: { eventId: 'e1', registrationId: 'r1', reason: 'Asked by the parent', erasedAt: '2026-03-02T10:00:00.000Z' },
  };

  it('records why, once, for a booking on the event or deleted from it', () => {
    given([scheduled, made('r1', 1, 'registered')])
      .when(erase('r1'))
      .thenEvents([erased]);
    given([scheduled, made('r1', 1, 'registered'), erased])
      .when(erase('r1'))
      .thenEvents([]);
    given([
      scheduled,
      made('r1', 1, 'registered'),
      { type: 'WorkshopRegistrationDeleted', data: { eventId: 'e1', registrationId: 'r1' } },
    ])
      .when(erase('r1'))
      .thenEvents([erased]);
  });

  it('is for admins, of a booking that is here, and not of a family’s booking', () => {
    given([scheduled, made('r1', 1, 'registered')])
      .when({ ...erase('r1'), actor: tutor } as WorkshopCommand)
      .thenRefused('forbidden');
    given([scheduled]).when(erase('r1')).thenRefused('not_found');
    given([scheduled, made('r1', 1, 'registered')])
      .when(erase('r1', 'c1'))
      .thenRefused('conflict', /Erase the family/);
  });

  it('an erased booking cannot move: its details could not be recorded again', () => {
    const other = { ...event, eventId: 'e2' };
    given([{ type: 'WorkshopEventScheduled', data: other }])
      .when({
        type: 'MoveIn',
        registration: { ...booking('r1'), places: 1, status: 'registered', movedFrom: null },
        fromEventId: 'e1',
        invoicedPricePence: null,
        nowLocal: '2026-03-01T09:00',
        actor: admin,
        erased: true,
      })
      .thenRefused('conflict', /erased/);
  });
});

describe('public bookings: requested, confirmed from the link, or lapsed', () => {
  const now = new Date('2026-03-01T09:00:00Z');
  const later = (minutes: number) => new Date(now.getTime() + minutes * 60_000);
  const expiresAt = later(LIMITS.bookingHoldMinutes).toISOString();
  const { clientId: _c, accountKey: _a, ...asked } = booking('q1', 2);
  const request = (registrationId: string, children: number, email = 'jo@example.com'): WorkshopCommand => ({
    type: 'RequestBooking',
    registration: {
      ...asked,
      registrationId,
      contact: { ...asked.contact, email },
      children: Array.from({ length: children }, () => child),
    },
    linkId: `link-${registrationId}`,
    nowLocal: '2026-03-01T09:00',
    now,
  });
  const requested = (registrationId: string, children: number, held: boolean, email = 'jo@example.com') =>
    ({
      type: 'WorkshopBookingRequested',
      data: {
        eventId: 'e1',
        registrationId,
        contact: { ...asked.contact, email },
        children: Array.from({ length: children }, () => child),
        comments: '',
        places: children,
        held,
        expiresAt,
        linkId: `link-${registrationId}`,
      },
    }) as WorkshopEvent;
  const confirm = (registrationId: string, at = now): WorkshopCommand => ({
    type: 'ConfirmBooking',
    registrationId,
    clientId: 'c1',
    accountKey: 'acc-1',
    nowLocal: '2026-03-01T09:30',
    now: at,
  });
  const lapse = (registrationId: string, at: Date): WorkshopCommand => ({
    type: 'LapseBooking',
    registrationId,
    nowLocal: '2026-03-01T11:00',
    now: at,
  });

  it('a request holds its places until it lapses, and links to no family', () => {
    given([scheduled])
      .when(request('q1', 2))
      .thenEvents([requested('q1', 2, true)]);
    // The hold counts: one place is left, so a second request of two is bound for the waiting list.
    given([scheduled, requested('q1', 2, true)])
      .when(request('q2', 2, 'other@example.com'))
      .thenEvents([requested('q2', 2, false, 'other@example.com')]);
    // A retried request finds itself.
    given([scheduled, requested('q1', 2, true)])
      .when(request('q1', 2))
      .thenEvents([]);
  });

  it('a hold past its time frees its places before its lapse is recorded', () => {
    const afterHold = { ...(request('q2', 3, 'other@example.com') as object), now: later(61) } as WorkshopCommand;
    given([scheduled, requested('q1', 2, true)])
      .when(afterHold)
      .thenEvents([
        {
          ...requested('q2', 3, true, 'other@example.com'),
          data: {
            ...requested('q2', 3, true, 'other@example.com').data,
            expiresAt: later(61 + LIMITS.bookingHoldMinutes).toISOString(),
          },
        } as WorkshopEvent,
      ]);
  });

  it('confirming makes the registration, linked to the family of the address, with its held places', () => {
    given([scheduled, requested('q1', 2, true)])
      .when(confirm('q1'))
      .thenEvents([
        {
          type: 'WorkshopRegistrationMade',
          data: { ...made('q1', 2, 'registered').data, clientId: 'c1', accountKey: 'acc-1' },
        } as WorkshopEvent,
      ]);
    // A second click on the link changes nothing.
    given([scheduled, requested('q1', 2, true), { ...made('q1', 2, 'registered') }])
      .when(confirm('q1'))
      .thenEvents([]);
  });

  it('a request bound for the waiting list joins it when confirmed, or gets a place if one came free', () => {
    const full = [scheduled, made('r1', 3, 'registered'), requested('q1', 1, false)];
    given(full)
      .when(confirm('q1'))
      .thenEvents([
        {
          type: 'WorkshopRegistrationMade',
          data: { ...made('q1', 1, 'waitlisted').data, clientId: 'c1', accountKey: 'acc-1' },
        } as WorkshopEvent,
      ]);
    given([...full, { type: 'WorkshopRegistrationDeleted', data: { eventId: 'e1', registrationId: 'r1' } }])
      .when(confirm('q1'))
      .thenEvents([
        {
          type: 'WorkshopRegistrationMade',
          data: { ...made('q1', 1, 'registered').data, clientId: 'c1', accountKey: 'acc-1' },
        } as WorkshopEvent,
      ]);
  });

  it('a request whose personal data was erased cannot be confirmed', () => {
    given([
      scheduled,
      requested('q1', 2, true),
      {
        type: 'WorkshopRegistrationErased',
        data: { eventId: 'e1', registrationId: 'q1', reason: 'Asked', erasedAt: now.toISOString() },
      },
    ])
      .when(confirm('q1'))
      .thenRefused('conflict', /erased/);
  });

  it('a link used after the hold is refused: the booking lapsed', () => {
    given([scheduled, requested('q1', 2, true)])
      .when(confirm('q1', later(61)))
      .thenRefused('conflict', /lapsed/);
    given([
      scheduled,
      requested('q1', 2, true),
      { type: 'WorkshopBookingLapsed', data: { eventId: 'e1', registrationId: 'q1' } },
    ])
      .when(confirm('q1'))
      .thenRefused('conflict', /lapsed/);
  });

  it('a lapse frees the held places and the waiting list moves up into them, in booking order, each that fits', () => {
    given([scheduled, requested('q1', 3, true), made('w1', 2, 'waitlisted'), made('w2', 1, 'waitlisted')])
      .when(lapse('q1', later(61)))
      .thenEvents([
        { type: 'WorkshopBookingLapsed', data: { eventId: 'e1', registrationId: 'q1' } },
        { type: 'WorkshopRegistrationPlaced', data: { eventId: 'e1', registrationId: 'w1' } },
        { type: 'WorkshopRegistrationPlaced', data: { eventId: 'e1', registrationId: 'w2' } },
      ]);
    // Not due yet, or confirmed meanwhile: nothing.
    given([scheduled, requested('q1', 3, true)])
      .when(lapse('q1', later(30)))
      .thenEvents([]);
    given([scheduled, requested('q1', 1, true), made('q1', 1, 'registered')])
      .when(lapse('q1', later(61)))
      .thenEvents([]);
  });

  it('bounds one address on one event, the children of one booking, and the waiting list', () => {
    const roomy = { type: 'WorkshopEventScheduled', data: { ...event, capacity: 100 } } as WorkshopEvent;
    given([roomy, requested('q1', 5, true)])
      .when(request('q2', 2))
      .thenRefused('conflict', /one e-mail address/);
    given([roomy, requested('q1', 5, true)])
      .when(request('q2', 2, 'JO@Example.com'))
      .thenRefused('conflict');
    given([roomy])
      .when(request('q1', LIMITS.maxChildrenPerPublicBooking + 1))
      .thenRefused('invalid');
    const tiny = { type: 'WorkshopEventScheduled', data: { ...event, capacity: 1 } } as WorkshopEvent;
    const queue = Array.from({ length: LIMITS.maxWaitingListPlaces }, (_, i) => made(`w${i}`, 1, 'waitlisted'));
    given([tiny, made('r1', 1, 'registered'), ...queue])
      .when(request('q1', 1, 'new@example.com'))
      .thenRefused('conflict', /waiting list/);
    given([tiny, made('r1', 1, 'registered'), ...queue])
      .when(register('r9', 1))
      .thenRefused('conflict', /waiting list/);
  });
});
