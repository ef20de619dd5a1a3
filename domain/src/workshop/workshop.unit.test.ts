import type { WorkshopEvent } from '@agency/contracts';
import { describe, expect, it } from 'vitest';
import { familyInvoiceDecider } from '../family-invoice/family-invoice';
import { specFor } from '../testing/given-when-then';
import type { Actor } from '../timesheet/timesheet';
import {
  accountDecider,
  type NewRegistration,
  registrationLine,
  type WorkshopCommand,
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
