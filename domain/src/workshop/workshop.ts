import {
  type FamilyInvoiceLine,
  LIMITS,
  type RegistrationDetails,
  type WorkshopEvent,
  type WorkshopEventDetails,
} from '@agency/contracts';
import { displayDate } from '../shared/calendar';
import { type Decider, DomainError } from '../shared/decider';
import { checkDate, checkId, checkList, checkPence, checkText } from '../shared/limits';
import { formatPounds, type Pence } from '../shared/money';
import type { Actor } from '../timesheet/timesheet';

export * from './places';

/**
 * A workshop event, stream `workshop-event-{id}`, with every registration made on it, so the
 * capacity (places, one per child) is decided in one stream at its expected revision: two
 * bookings at the same moment never both take the last place. A booking past the capacity goes on
 * the waiting list; a moved or deleted registration leaves the event (and its history stays).
 */
export type Registration = Omit<RegistrationDetails, 'eventId'>;

export type WorkshopState =
  | { status: 'none' }
  | {
      status: 'scheduled' | 'cancelled';
      event: WorkshopEventDetails;
      /** Registrations on the event now, in booking order. */
      registrations: ReadonlyMap<string, Registration>;
      /** Public bookings asked for and not confirmed yet (docs/limits.md, "Public bookings"). */
      requests: ReadonlyMap<string, BookingRequest>;
      /** Registrations that left: deleted, or moved to another event; requests that lapsed. */
      gone: ReadonlyMap<string, 'deleted' | 'moved' | 'lapsed'>;
      /** Registrations (of no known family) whose personal data was erased here. */
      erased: ReadonlySet<string>;
    };
type Live = Exclude<WorkshopState, { status: 'none' }>;

export type NewRegistration = Omit<Registration, 'status' | 'movedFrom' | 'places'>;

/** A booking asked for by someone not signed in: `held`, its places are kept for it until `expiresAt`. */
export type BookingRequest = Pick<Registration, 'registrationId' | 'contact' | 'children' | 'comments' | 'places'> & {
  held: boolean;
  /** An instant (ISO 8601). */
  expiresAt: string;
};

export type WorkshopCommand =
  | { type: 'ScheduleEvent'; event: WorkshopEventDetails; actor: Actor }
  | { type: 'ChangeEvent'; event: WorkshopEventDetails; actor: Actor }
  | { type: 'CancelEvent'; actor: Actor }
  /** `nowLocal`: the agency's date and time now (`YYYY-MM-DDTHH:mm`); nobody books a past event. */
  | { type: 'Register'; registration: NewRegistration; nowLocal: string; now?: Date }
  /** A public booking: held (or bound for the waiting list) until its address confirms it. */
  | {
      type: 'RequestBooking';
      registration: Omit<NewRegistration, 'clientId' | 'accountKey'>;
      linkId: string;
      nowLocal: string;
      now: Date;
    }
  /** Its address confirmed it: `clientId`, the family of that address (or null), `accountKey`, its workshop account. */
  | {
      type: 'ConfirmBooking';
      registrationId: string;
      clientId: string | null;
      accountKey: string;
      nowLocal: string;
      now: Date;
    }
  /** Not confirmed in time: its places are freed, and the waiting list moves up into them. */
  | { type: 'LapseBooking'; registrationId: string; nowLocal: string; now: Date }
  /**
   * `invoicedPricePence`: what its invoice charged, when it is invoiced (the price must not change).
   * A registration with places needs room for them; one on the waiting list gets places when there
   * is room for all its children, and waits there otherwise.
   */
  | {
      type: 'MoveIn';
      registration: Registration;
      fromEventId: string;
      invoicedPricePence: Pence | null;
      nowLocal: string;
      actor: Actor;
      now?: Date;
      /** Its personal data was erased on the event it leaves: nothing personal can be recorded again. */
      erased?: boolean;
    }
  | { type: 'MoveOut'; registrationId: string; toEventId: string; actor: Actor }
  | { type: 'Place'; registrationId: string; actor: Actor; now?: Date }
  | { type: 'DeleteRegistration'; registrationId: string; actor: Actor }
  /**
   * Erase a booking of no known family (its key is destroyed by the caller); `linkedFamily`: the
   * family its booking is linked to, whose erasure covers it instead.
   */
  | {
      type: 'EraseRegistration';
      registrationId: string;
      linkedFamily: string | null;
      reason: string;
      erasedAt: string;
      actor: Actor;
    };

export const initialState = (): WorkshopState => ({ status: 'none' });

const without = <V>(map: ReadonlyMap<string, V>, key: string) => {
  const copy = new Map(map);
  copy.delete(key);
  return copy;
};

export function evolve(state: WorkshopState, event: WorkshopEvent): WorkshopState {
  switch (event.type) {
    case 'WorkshopEventScheduled':
    case 'WorkshopEventChanged':
      return state.status === 'none'
        ? {
            status: 'scheduled',
            event: event.data,
            registrations: new Map(),
            requests: new Map(),
            gone: new Map(),
            erased: new Set<string>(),
          }
        : { ...state, event: event.data };
    case 'WorkshopEventCancelled':
      return state.status === 'none' ? state : { ...state, status: 'cancelled' };
    case 'WorkshopRegistrationMade': {
      if (state.status === 'none') return state;
      const { eventId: _event, ...registration } = event.data;
      return {
        ...state,
        registrations: new Map(state.registrations).set(registration.registrationId, registration),
        requests: without(state.requests, registration.registrationId),
        gone: without(state.gone, registration.registrationId),
      };
    }
    case 'WorkshopBookingRequested': {
      if (state.status === 'none') return state;
      const { registrationId, contact, children, comments, places, held, expiresAt } = event.data;
      const request = { registrationId, contact, children, comments, places, held, expiresAt };
      return { ...state, requests: new Map(state.requests).set(registrationId, request) };
    }
    case 'WorkshopBookingLapsed':
      if (state.status === 'none') return state;
      return {
        ...state,
        requests: without(state.requests, event.data.registrationId),
        gone: new Map(state.gone).set(event.data.registrationId, 'lapsed'),
      };
    case 'WorkshopRegistrationPlaced': {
      const registration = state.status === 'none' ? undefined : state.registrations.get(event.data.registrationId);
      if (state.status === 'none' || !registration) return state;
      return {
        ...state,
        registrations: new Map(state.registrations).set(registration.registrationId, {
          ...registration,
          status: 'registered',
        }),
      };
    }
    case 'WorkshopRegistrationDeleted':
    case 'WorkshopRegistrationMovedOut':
      if (state.status === 'none') return state;
      return {
        ...state,
        registrations: without(state.registrations, event.data.registrationId),
        gone: new Map(state.gone).set(
          event.data.registrationId,
          event.type === 'WorkshopRegistrationDeleted' ? 'deleted' : 'moved',
        ),
      };
    case 'WorkshopRegistrationErased':
      return state.status === 'none'
        ? state
        : { ...state, erased: new Set(state.erased).add(event.data.registrationId) };
    default:
      return state;
  }
}

const sumPlaces = (rows: Iterable<{ places: number }>) => [...rows].reduce((sum, r) => sum + r.places, 0);

/** A request still held at `now` (without `now`: every request not lapsed yet, as the read model counts them). */
const stillLive = (request: BookingRequest, now?: Date) => now === undefined || request.expiresAt > now.toISOString();

/**
 * Places taken by registrations that have one (the waiting list takes none) and held by public
 * bookings awaiting confirmation; a hold past its time frees its places even before it is
 * recorded as lapsed.
 */
export const placesTaken = (state: Live, now?: Date) =>
  sumPlaces([...state.registrations.values()].filter((r) => r.status === 'registered')) +
  sumPlaces([...state.requests.values()].filter((r) => r.held && stillLive(r, now)));

export const placesLeft = (state: Live, now?: Date) => Math.max(state.event.capacity - placesTaken(state, now), 0);

/** Places on the waiting list, and asked for it by bookings awaiting confirmation. */
export const waitingPlaces = (state: Live, now?: Date) =>
  sumPlaces([...state.registrations.values()].filter((r) => r.status === 'waitlisted')) +
  sumPlaces([...state.requests.values()].filter((r) => !r.held && stillLive(r, now)));

/** A registration's price: the event's price per child times its children. */
export const registrationPrice = (event: Pick<WorkshopEventDetails, 'pricePence'>, places: number): Pence =>
  event.pricePence * places;

/** `2026-07-20T10:00` → `20 Jul 2026 10:00` (the spec's dd MMM yyyy hh:mm). */
export const displayDateTime = (dateTime: string) => `${displayDate(dateTime.slice(0, 10))} ${dateTime.slice(11, 16)}`;

/** The invoice line of a registration: the workshop, when, and for how many children (no names). */
export const registrationLine = (event: WorkshopEventDetails, places: number): FamilyInvoiceLine => ({
  description: `${event.description}, ${displayDateTime(event.dateTime)} (${places} ${places === 1 ? 'child' : 'children'})`,
  amountPence: registrationPrice(event, places),
});

const adminOnly = (actor: Actor, what: string) => {
  if (actor.role !== 'admin') throw new DomainError('forbidden', `Only an admin can ${what}.`);
};

const invalid = (field: string, message: string): never => {
  throw new DomainError('invalid', `${message}.`, { [field]: message });
};

function checkEvent(event: WorkshopEventDetails) {
  checkId(event.eventId, 'id', 'The event id');
  checkText(event.description, { field: 'description', label: 'Description', required: true });
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(event.dateTime)) invalid('dateTime', 'Enter a real date and time');
  checkDate(event.dateTime.slice(0, 10), 'dateTime');
  const whole = (value: number, field: string, label: string, max: number) => {
    if (!Number.isSafeInteger(value) || value < 1 || value > max) invalid(field, `${label} must be 1 to ${max}`);
  };
  whole(event.durationMinutes, 'durationMinutes', 'Duration', LIMITS.maxWorkshopMinutes);
  whole(event.capacity, 'capacity', 'Capacity', LIMITS.maxWorkshopCapacity);
  checkPence(event.pricePence, { field: 'price', label: 'Price' });
  checkText(event.location, { field: 'location', label: 'Location' });
}

function checkRegistration(registration: NewRegistration) {
  checkId(registration.registrationId, 'registrationId', 'The registration id');
  if (registration.clientId !== null) checkId(registration.clientId, 'clientId', 'The family');
  const { contact } = registration;
  for (const name of ['firstName', 'lastName', 'postcode', 'email', 'phone'] as const) {
    checkText(contact[name], { field: `contact.${name}`, label: name, required: true, max: LIMITS.maxEmailLength });
  }
  checkList(contact.address, LIMITS.maxAddressLines, 'contact.address', 'Address lines', (line) =>
    checkText(line, { field: 'contact.address', label: 'An address line' }),
  );
  if (registration.children.length === 0) invalid('children', 'Add at least one child');
  checkList(registration.children, LIMITS.maxChildrenPerBooking, 'children', 'Children', (child) => {
    const { firstName, lastName, school, schoolYear, allergies } = child as Registration['children'][number];
    checkText(firstName, { field: 'children', label: 'First name', required: true });
    checkText(lastName, { field: 'children', label: 'Last name', required: true });
    checkText(school, { field: 'children', label: 'School' });
    checkText(schoolYear, { field: 'children', label: 'Year' });
    checkText(allergies, { field: 'children', label: 'Allergies', max: LIMITS.maxAllergiesLength });
  });
  checkText(registration.comments, { field: 'comments', label: 'Comments', max: LIMITS.maxCommentsLength });
}

function refuseFullWaitingList(live: Live, places: number, now?: Date) {
  if (waitingPlaces(live, now) + places > LIMITS.maxWaitingListPlaces) {
    throw new DomainError('conflict', `${live.event.description} is full and so is its waiting list.`);
  }
}

function liveOrRefuse(state: WorkshopState): Live {
  if (state.status === 'none') throw new DomainError('not_found', 'There is no such event.');
  return state;
}

function openOrRefuse(state: WorkshopState, nowLocal: string): Live {
  const live = liveOrRefuse(state);
  if (live.status === 'cancelled') throw new DomainError('conflict', 'This event was cancelled.');
  if (live.event.dateTime <= nowLocal) throw new DomainError('conflict', 'This event has started already.');
  return live;
}

function registrationOrRefuse(state: WorkshopState, registrationId: string): Registration {
  const registration = liveOrRefuse(state).registrations.get(registrationId);
  if (!registration) throw new DomainError('not_found', 'There is no such registration on this event.');
  return registration;
}

export function decide(command: WorkshopCommand, state: WorkshopState, _now: Date): WorkshopEvent[] {
  switch (command.type) {
    case 'ScheduleEvent': {
      adminOnly(command.actor, 'schedule workshops');
      checkEvent(command.event);
      if (state.status !== 'none') {
        if (JSON.stringify(state.event) === JSON.stringify(command.event)) return [];
        throw new DomainError('conflict', 'This event has been scheduled already.');
      }
      return [{ type: 'WorkshopEventScheduled', data: command.event }];
    }
    case 'ChangeEvent': {
      adminOnly(command.actor, 'change workshops');
      checkEvent(command.event);
      const live = liveOrRefuse(state);
      if (live.status === 'cancelled') throw new DomainError('conflict', 'This event was cancelled.');
      if (command.event.eventId !== live.event.eventId) invalid('id', 'The event id cannot change');
      const taken = placesTaken(live);
      if (command.event.capacity < taken) {
        invalid('capacity', `${taken} places are taken: the capacity cannot be less`);
      }
      if (JSON.stringify(live.event) === JSON.stringify(command.event)) return [];
      return [{ type: 'WorkshopEventChanged', data: command.event }];
    }
    case 'CancelEvent': {
      adminOnly(command.actor, 'cancel workshops');
      const live = liveOrRefuse(state);
      if (live.status === 'cancelled') return [];
      return [{ type: 'WorkshopEventCancelled', data: { eventId: live.event.eventId } }];
    }
    case 'Register': {
      const { registration, nowLocal } = command;
      // A retried booking finds itself.
      if (state.status !== 'none' && state.registrations.has(registration.registrationId)) return [];
      checkRegistration(registration);
      const live = openOrRefuse(state, nowLocal);
      const places = registration.children.length;
      const status = places <= placesLeft(live, command.now) ? 'registered' : 'waitlisted';
      if (status === 'waitlisted') refuseFullWaitingList(live, places, command.now);
      const { eventId } = live.event;
      return [
        { type: 'WorkshopRegistrationMade', data: { ...registration, eventId, places, status, movedFrom: null } },
      ];
    }
    case 'RequestBooking': {
      const { registration, nowLocal, now } = command;
      const id = registration.registrationId;
      // A retried request finds itself, whatever became of it.
      if (state.status !== 'none' && (state.requests.has(id) || state.registrations.has(id) || state.gone.has(id))) {
        return [];
      }
      checkRegistration({ ...registration, clientId: null });
      const places = registration.children.length;
      if (places > LIMITS.maxChildrenPerPublicBooking) {
        invalid('children', `At most ${LIMITS.maxChildrenPerPublicBooking} children in one booking`);
      }
      const live = openOrRefuse(state, nowLocal);
      const email = registration.contact.email.trim().toLowerCase();
      const ofAddress = [
        ...[...live.registrations.values()],
        ...[...live.requests.values()].filter((request) => stillLive(request, now)),
      ].filter((booked) => booked.contact.email.trim().toLowerCase() === email);
      if (sumPlaces(ofAddress) + places > LIMITS.maxPlacesPerEmailPerEvent) {
        throw new DomainError(
          'conflict',
          `At most ${LIMITS.maxPlacesPerEmailPerEvent} places on one event can be booked from one e-mail address.`,
          { children: 'Too many places for one e-mail address' },
        );
      }
      const held = places <= placesLeft(live, now);
      if (!held) refuseFullWaitingList(live, places, now);
      const expiresAt = new Date(now.getTime() + LIMITS.bookingHoldMinutes * 60_000).toISOString();
      return [
        {
          type: 'WorkshopBookingRequested',
          data: {
            eventId: live.event.eventId,
            registrationId: id,
            contact: registration.contact,
            children: registration.children,
            comments: registration.comments,
            places,
            held,
            expiresAt,
            linkId: command.linkId,
          },
        },
      ];
    }
    case 'ConfirmBooking': {
      const { registrationId, now } = command;
      // Confirmed already (a second click on the link): nothing more to do.
      if (state.status !== 'none' && state.registrations.has(registrationId)) return [];
      const live = liveOrRefuse(state);
      const request = live.requests.get(registrationId);
      // Its personal data was erased: nothing of it can be recorded again.
      if (live.erased.has(registrationId)) {
        throw new DomainError('conflict', 'This booking was erased: please book again.');
      }
      if (!request || !stillLive(request, now)) {
        if (request || live.gone.get(registrationId) === 'lapsed') {
          throw new DomainError('conflict', 'This booking was not confirmed in time, so it lapsed: please book again.');
        }
        throw new DomainError('not_found', 'There is no such booking to confirm.');
      }
      openOrRefuse(live, command.nowLocal);
      const { contact, children, comments, places } = request;
      // A held request's places are its own; another joins now if the event has room, else waits.
      const status = request.held || places <= placesLeft(live, now) ? 'registered' : 'waitlisted';
      return [
        {
          type: 'WorkshopRegistrationMade',
          data: {
            eventId: live.event.eventId,
            registrationId,
            clientId: command.clientId,
            contact,
            children,
            comments,
            places,
            status,
            movedFrom: null,
            accountKey: command.accountKey,
          },
        },
      ];
    }
    case 'LapseBooking': {
      const { registrationId, now } = command;
      const request = state.status === 'none' ? undefined : state.requests.get(registrationId);
      // Confirmed, lapsed already, or not due yet: nothing to do.
      if (state.status === 'none' || !request || stillLive(request, now)) return [];
      const { eventId } = state.event;
      const lapse: WorkshopEvent = { type: 'WorkshopBookingLapsed', data: { eventId, registrationId } };
      const lapsed: WorkshopEvent[] = [lapse];
      if (!request.held || state.status === 'cancelled' || state.event.dateTime <= command.nowLocal) return lapsed;
      // The waiting list moves up into the freed places, first come first served, each that fits.
      let free = placesLeft(liveOrRefuse(evolve(state, lapse)), now);
      for (const waiting of state.registrations.values()) {
        if (waiting.status !== 'waitlisted' || waiting.places > free) continue;
        free -= waiting.places;
        lapsed.push({ type: 'WorkshopRegistrationPlaced', data: { eventId, registrationId: waiting.registrationId } });
      }
      return lapsed;
    }
    case 'MoveIn': {
      adminOnly(command.actor, 'move registrations');
      const { registration, fromEventId, invoicedPricePence, nowLocal } = command;
      if (state.status !== 'none' && state.registrations.has(registration.registrationId)) return [];
      const live = openOrRefuse(state, nowLocal);
      if (fromEventId === live.event.eventId) invalid('toEventId', 'Choose another event');
      if (command.erased) throw new DomainError('conflict', "This booking's personal data was erased: it cannot move.");
      const room = registration.places <= placesLeft(live, command.now);
      if (registration.status === 'registered' && !room) {
        throw new DomainError('conflict', `${live.event.description} has no room for this registration.`);
      }
      // Off the waiting list where all its children fit; else on this event's waiting list, within its bound.
      const status = room ? 'registered' : 'waitlisted';
      if (!room) refuseFullWaitingList(live, registration.places, command.now);
      const price = registrationPrice(live.event, registration.places);
      if (invoicedPricePence !== null && price !== invoicedPricePence) {
        throw new DomainError(
          'conflict',
          `This registration was invoiced at ${formatPounds(invoicedPricePence)}; at ${live.event.description} it would cost ${formatPounds(price)}. Credit the invoice first.`,
        );
      }
      return [
        {
          type: 'WorkshopRegistrationMade',
          data: { ...registration, eventId: live.event.eventId, status, movedFrom: fromEventId },
        },
      ];
    }
    case 'MoveOut': {
      adminOnly(command.actor, 'move registrations');
      if (state.status !== 'none' && state.gone.get(command.registrationId) === 'moved') return [];
      registrationOrRefuse(state, command.registrationId);
      const { eventId } = liveOrRefuse(state).event;
      return [
        {
          type: 'WorkshopRegistrationMovedOut',
          data: { eventId, registrationId: command.registrationId, toEventId: command.toEventId },
        },
      ];
    }
    case 'Place': {
      adminOnly(command.actor, 'give places');
      const registration = registrationOrRefuse(state, command.registrationId);
      if (registration.status === 'registered') return [];
      const live = liveOrRefuse(state);
      if (live.status === 'cancelled') throw new DomainError('conflict', 'This event was cancelled.');
      if (registration.places > placesLeft(live, command.now)) {
        throw new DomainError('conflict', `There is no free place for ${registration.places} more.`);
      }
      const { eventId } = live.event;
      return [{ type: 'WorkshopRegistrationPlaced', data: { eventId, registrationId: registration.registrationId } }];
    }
    case 'DeleteRegistration': {
      adminOnly(command.actor, 'delete registrations');
      if (state.status !== 'none' && state.gone.get(command.registrationId) === 'deleted') return [];
      registrationOrRefuse(state, command.registrationId);
      const { eventId } = liveOrRefuse(state).event;
      return [{ type: 'WorkshopRegistrationDeleted', data: { eventId, registrationId: command.registrationId } }];
    }
    case 'EraseRegistration': {
      adminOnly(command.actor, 'erase personal data');
      const live = liveOrRefuse(state);
      const { registrationId } = command;
      if (live.erased.has(registrationId)) return [];
      if (live.gone.get(registrationId) === 'lapsed') return [];
      if (
        !live.registrations.has(registrationId) &&
        !live.requests.has(registrationId) &&
        live.gone.get(registrationId) !== 'deleted'
      ) {
        throw new DomainError('not_found', 'There is no such registration on this event.');
      }
      if (command.linkedFamily !== null) {
        throw new DomainError(
          'conflict',
          "This booking is the family's: erasing the family erases it. Erase the family on the client's page.",
        );
      }
      checkText(command.reason, { field: 'reason', label: 'Reason', required: true });
      const { eventId } = live.event;
      return [
        {
          type: 'WorkshopRegistrationErased',
          data: { eventId, registrationId, reason: command.reason, erasedAt: command.erasedAt },
        },
      ];
    }
    default: {
      const _never: never = command;
      return _never;
    }
  }
}

export const workshopDecider: Decider<WorkshopCommand, WorkshopEvent, WorkshopState> = {
  initialState,
  evolve,
  decide,
};

export const workshopStream = (eventId: string) => `workshop-event-${eventId}`;

/**
 * The workshop invoices of one e-mail address, stream `workshop-account-{key}`: which
 * registrations are invoiced (by a family invoice not credited). A registration is on one such
 * invoice at most; a credited invoice frees its registrations to be invoiced again.
 */
export type InvoicedRegistration = { invoiceId: string; eventId: string; pricePence: Pence };
export type AccountState = { invoiced: ReadonlyMap<string, InvoicedRegistration>; invoices: ReadonlySet<string> };

export type AccountCommand =
  | {
      type: 'ConfirmWorkshopInvoice';
      invoiceId: string;
      /** Each registration to bill, with its price now; checked by the service to be this e-mail's and on an event. */
      registrations: { eventId: string; registrationId: string; pricePence: Pence }[];
      discountPence: Pence;
      actor: Actor;
    }
  | { type: 'NoteCredited'; invoiceId: string };

export const accountDecider: Decider<AccountCommand, WorkshopEvent, AccountState> = {
  initialState: () => ({ invoiced: new Map(), invoices: new Set() }),
  evolve: (state, event) => {
    if (event.type === 'WorkshopInvoiceConfirmed') {
      const invoiced = new Map(state.invoiced);
      const { invoiceId } = event.data;
      for (const { registrationId, eventId, pricePence } of event.data.registrations) {
        invoiced.set(registrationId, { invoiceId, eventId, pricePence });
      }
      return { invoiced, invoices: new Set(state.invoices).add(invoiceId) };
    }
    if (event.type === 'WorkshopInvoiceCredited') {
      const invoiced = new Map([...state.invoiced].filter(([, entry]) => entry.invoiceId !== event.data.invoiceId));
      return { ...state, invoiced };
    }
    return state;
  },
  decide: (command, state) => {
    switch (command.type) {
      case 'ConfirmWorkshopInvoice': {
        adminOnly(command.actor, 'issue workshop invoices');
        if (state.invoices.has(command.invoiceId)) return [];
        checkId(command.invoiceId, 'invoiceId', 'The invoice id');
        const { registrations, discountPence } = command;
        if (registrations.length === 0) invalid('registrationIds', 'Include at least one registration');
        const ids = new Set(registrations.map((r) => r.registrationId));
        if (ids.size !== registrations.length) invalid('registrationIds', 'A registration is listed twice');
        for (const { registrationId } of registrations) {
          const earlier = state.invoiced.get(registrationId);
          if (earlier) {
            throw new DomainError('conflict', 'A registration on this invoice has been invoiced already.', {
              registrationIds: 'Invoiced already',
            });
          }
        }
        const sum = registrations.reduce(
          (total, r) => total + checkPence(r.pricePence, { field: 'price', label: 'Price' }),
          0,
        );
        checkPence(discountPence, { field: 'discountAmount', label: 'Discount' });
        if (discountPence > sum) {
          invalid(
            'discountAmount',
            `The discount cannot be more than ${formatPounds(sum)}, the included registrations`,
          );
        }
        return [
          { type: 'WorkshopInvoiceConfirmed', data: { invoiceId: command.invoiceId, registrations, discountPence } },
        ];
      }
      case 'NoteCredited': {
        const still = [...state.invoiced.values()].some((entry) => entry.invoiceId === command.invoiceId);
        return still ? [{ type: 'WorkshopInvoiceCredited', data: { invoiceId: command.invoiceId } }] : [];
      }
      default: {
        const _never: never = command;
        return _never;
      }
    }
  },
};

/** `key`: a digest of the e-mail address (the service makes it), so no address is in a stream name. */
export const accountStream = (key: string) => `workshop-account-${key}`;
