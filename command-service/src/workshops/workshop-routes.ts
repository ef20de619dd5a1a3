import { createHash, randomUUID } from 'node:crypto';
import {
  bookingBody,
  LIMITS,
  registrationDeleteBody,
  registrationMoveBody,
  registrationPlaceBody,
  type SessionUser,
  workshopEventBody,
  workshopEventCancelBody,
  workshopInvoiceConfirmBody,
  workshopInvoiceDraftBody,
} from '@agency/contracts';
import { nowLocalIn, toPence, toPounds, workshop } from '@agency/domain';
import { describeOnly, HttpError, invalidInput, notFound } from '@agency/platform';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { ResetThrottle } from '../auth/reset-throttle';
import type { FamilyInvoicing } from '../family-invoices/family-invoicing';
import type { Mailer } from '../mail/mailer';
import { workshopMessage } from '../mail/messages';
import {
  type CommandContext,
  type CommandDependencies,
  commandRoute,
  createCommandContext,
  domainToHttp,
} from '../pipeline/command-pipeline';
import { workshopLookups } from './workshop-lookups';

type Live = Exclude<workshop.WorkshopState, { status: 'none' }>;
type Options = {
  deps: CommandDependencies;
  invoicing: FamilyInvoicing;
  db: pg.Pool;
  mailer: Mailer;
  timeZone: string;
};

/** Enough tries for a class's worth of parents booking at the same moment: each lost try lets another win. */
const BOOKING_ATTEMPTS = 25;
/** Who a public booking is recorded as (no login): the events' metadata says so. */
const PUBLIC_BOOKER = { id: 'public-booking', username: 'public', role: 'public' } as unknown as SessionUser;

/** The workshop account of an e-mail address: a digest, so no address is in a stream's name. */
export const accountKey = (email: string) =>
  createHash('sha256').update(email.trim().toLowerCase()).digest('hex').slice(0, 32);

const { workshopDecider, workshopStream, accountDecider, accountStream } = workshop;

function eventAnswer(state: Live) {
  const e = state.event;
  return {
    id: e.eventId,
    description: e.description,
    dateTime: e.dateTime,
    durationMinutes: e.durationMinutes,
    price: toPounds(e.pricePence),
    capacity: e.capacity,
    location: e.location,
    cancelled: state.status === 'cancelled',
    placesLeft: workshop.placesLeft(state),
  };
}

const withRetries = async <T>(attempt: () => Promise<T>): Promise<T> => {
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      const busy = error instanceof HttpError && error.code === 'concurrent_change';
      if (!busy || tries >= BOOKING_ATTEMPTS) throw error;
    }
  }
};

/**
 * Workshops: events (admins), the public booking (no login, rate-limited, a honeypot), moves,
 * deletes, places from the waiting list, and workshop invoices issued as family invoices.
 */
export async function workshopRoutes(app: FastifyInstance, options: Options) {
  const { deps, invoicing, db, mailer, timeZone } = options;
  const lookups = workshopLookups(db);
  // Public bookings per e-mail address and per client address, in the database like reset requests.
  const throttle = new ResetThrottle(db, {
    perAccount: LIMITS.maxBookingsPerEmailAnHour,
    perAddress: LIMITS.maxBookingsPerAddressAnHour,
    windowMs: 60 * 60 * 1000,
  });
  const nowLocal = (context: CommandContext) => nowLocalIn(timeZone, context.now);

  async function tell(registration: workshop.Registration, subject: string, paragraphs: string[]) {
    const { contact } = registration;
    await mailer
      .send(workshopMessage({ to: contact.email, name: contact.firstName, subject, paragraphs }))
      .catch((error) => app.log.warn({ err: error }, 'a workshop e-mail could not be sent'));
  }

  const when = (state: Live) => `${state.event.description} on ${workshop.displayDateTime(state.event.dateTime)}`;

  async function loadLive(context: CommandContext, eventId: string): Promise<Live> {
    const state = await context.load(workshopStream(eventId), workshopDecider);
    if (state.status === 'none') throw notFound('There is no such event.');
    return state;
  }

  /** Credits a registration's invoice, if it has one, and frees the invoice's other registrations. */
  async function creditInvoiceOf(
    context: CommandContext,
    registration: workshop.Registration,
    reason: 'changed' | 'cancelled',
  ) {
    const stream = accountStream(accountKey(registration.contact.email));
    const account = await context.load(stream, accountDecider);
    const invoiced = account.invoiced.get(registration.registrationId);
    if (!invoiced) return;
    await invoicing.credit(context, invoiced.invoiceId, reason);
    await context.run(stream, accountDecider, { type: 'NoteCredited', invoiceId: invoiced.invoiceId });
  }

  commandRoute(app, deps, {
    url: '/api/events',
    roles: ['admin'],
    body: workshopEventBody,
    handle: async ({ body }, context) => {
      const { run, user, newId } = context;
      const eventId = body.id ?? newId();
      const event = {
        eventId,
        description: body.description,
        dateTime: body.dateTime,
        durationMinutes: body.durationMinutes,
        pricePence: toPence(body.price, 'Price'),
        capacity: body.capacity,
        location: body.location,
      };
      const actor = { role: user.role, tutorId: user.tutorId };
      const saved = await run(
        workshopStream(eventId),
        workshopDecider,
        body.id ? { type: 'ChangeEvent', event, actor } : { type: 'ScheduleEvent', event, actor },
      );
      if (saved.status === 'none') throw new Error('an event that was just saved is missing');
      return { event: eventAnswer(saved) };
    },
  });

  commandRoute(app, deps, {
    url: '/api/events/cancel',
    roles: ['admin'],
    body: workshopEventCancelBody,
    handle: async ({ body }, context) => {
      const before = await loadLive(context, body.id);
      const cancelled = await context.run(workshopStream(body.id), workshopDecider, {
        type: 'CancelEvent',
        actor: { role: context.user.role, tutorId: context.user.tutorId },
      });
      if (cancelled.status === 'none') throw new Error('an event that was just cancelled is missing');
      if (before.status !== 'cancelled') {
        for (const registration of before.registrations.values()) {
          await creditInvoiceOf(context, registration, 'cancelled');
          await tell(registration, `Cancelled: ${before.event.description}`, [
            `We are sorry: ${when(before)} has been cancelled.`,
            'Anything you were invoiced for it is credited. We hope to see you at another workshop.',
          ]);
        }
      }
      return { event: eventAnswer(cancelled) };
    },
  });

  /** The parent's confirmation, or the waiting-list letter. */
  async function tellBooking(registration: workshop.Registration, state: Live) {
    if (registration.status === 'registered') {
      await tell(
        registration,
        `Booked: ${state.event.description}`,
        [
          `Thank you: ${registration.children.map((c) => c.firstName).join(', ')} ${registration.places === 1 ? 'has a place' : 'have places'} at ${when(state)}.`,
          state.event.location ? `Where: ${state.event.location}.` : '',
          'We will send you an invoice.',
        ].filter(Boolean),
      );
    } else {
      await tell(registration, `Waiting list: ${state.event.description}`, [
        `${when(state)} is full, so your booking is on the waiting list.`,
        'We will e-mail you if a place comes free.',
      ]);
    }
  }

  // The public booking: no login, so it is bounded here rather than by a session.
  app.post(
    '/api/public/events/:eventId/registrations',
    { bodyLimit: 16_384, schema: { body: bookingBody }, validatorCompiler: describeOnly },
    async (request) => {
      const { eventId } = request.params as { eventId: string };
      if (typeof eventId !== 'string' || eventId.length > LIMITS.maxIdLength) throw notFound('There is no such event.');
      const parsed = bookingBody.safeParse(request.body ?? {});
      if (!parsed.success) throw invalidInput(parsed.error.issues);
      const body = parsed.data;
      const commandId = body.commandId ?? randomUUID();
      // A honeypot filled in: answered as a booking, nothing recorded.
      if (body.website) return { registration: { id: randomUUID(), status: 'registered' } };
      // Keyed by a digest of the address, so the throttle's rows hold no e-mail an erasure would miss.
      const bookerKey = createHash('sha256').update(body.contact.email.toLowerCase()).digest('hex');
      if (!(await throttle.admit([`booking:${bookerKey}`], request.ip))) {
        throw new HttpError(429, 'too_many_attempts', 'Too many bookings from here: please try again later.');
      }
      const clientId = await lookups.familyWithEmail(body.contact.email);
      const { context, appendedUpTo } = createCommandContext(deps, PUBLIC_BOOKER, commandId, commandId);
      const registrationId = context.newId();
      try {
        // A repeated booking (the same command id) answers again but e-mails nothing new.
        const before = await context.load(workshopStream(eventId), workshopDecider);
        const repeated = before.status !== 'none' && before.registrations.has(registrationId);
        const state = await withRetries(() =>
          context.run(workshopStream(eventId), workshopDecider, {
            type: 'Register',
            registration: {
              registrationId,
              clientId,
              contact: body.contact,
              children: body.children,
              comments: body.comments,
            },
            nowLocal: nowLocal(context),
          }),
        );
        if (state.status === 'none') throw notFound('There is no such event.');
        const registration = state.registrations.get(registrationId);
        if (!registration) throw new Error('a registration that was just made is missing');
        const position = appendedUpTo();
        if (position) await deps.projections.waitFor(position, 5000);
        if (!repeated) await tellBooking(registration, state);
        return { registration: { id: registrationId, status: registration.status } };
      } catch (error) {
        throw domainToHttp(error);
      }
    },
  );

  commandRoute(app, deps, {
    url: '/api/events/place',
    roles: ['admin'],
    body: registrationPlaceBody,
    handle: async ({ body }, context) => {
      const state = await context.run(workshopStream(body.eventId), workshopDecider, {
        type: 'Place',
        registrationId: body.registrationId,
        actor: { role: context.user.role, tutorId: context.user.tutorId },
      });
      const registration = state.status === 'none' ? undefined : state.registrations.get(body.registrationId);
      if (state.status === 'none' || !registration) throw notFound('There is no such registration.');
      await tell(registration, `A place for you: ${state.event.description}`, [
        `Good news: a place came free, so your booking for ${when(state)} is confirmed.`,
      ]);
      return { registration: { id: registration.registrationId, status: registration.status } };
    },
  });

  commandRoute(app, deps, {
    url: '/api/events/move',
    roles: ['admin'],
    body: registrationMoveBody,
    handle: async ({ body }, context) => {
      const { fromEventId, registrationId, toEventId } = body;
      const actor = { role: context.user.role, tutorId: context.user.tutorId };
      const from = await loadLive(context, fromEventId);
      const registration = from.registrations.get(registrationId);
      if (!registration) throw notFound('There is no such registration on this event.');
      const account = await context.load(accountStream(accountKey(registration.contact.email)), accountDecider);
      // Into the new event first (its capacity decides), then out of the old one.
      const to = await context.run(workshopStream(toEventId), workshopDecider, {
        type: 'MoveIn',
        registration,
        fromEventId,
        invoicedPricePence: account.invoiced.get(registrationId)?.pricePence ?? null,
        nowLocal: nowLocal(context),
        actor,
        erased: from.erased.has(registrationId),
      });
      if (to.status === 'none') throw notFound('There is no such event to move to.');
      await context.run(workshopStream(fromEventId), workshopDecider, {
        type: 'MoveOut',
        registrationId,
        toEventId,
        actor,
      });
      return { registration: { id: registrationId, eventId: toEventId }, event: eventAnswer(to) };
    },
  });

  commandRoute(app, deps, {
    url: '/api/events/delete',
    roles: ['admin'],
    body: registrationDeleteBody,
    handle: async ({ body }, context) => {
      const before = await loadLive(context, body.eventId);
      const registration = before.registrations.get(body.registrationId);
      await context.run(workshopStream(body.eventId), workshopDecider, {
        type: 'DeleteRegistration',
        registrationId: body.registrationId,
        actor: { role: context.user.role, tutorId: context.user.tutorId },
      });
      if (registration) await creditInvoiceOf(context, registration, 'changed');
      return { registration: { id: body.registrationId, deleted: true } };
    },
  });

  commandRoute(app, deps, {
    url: '/api/events/createInvoice',
    roles: ['admin'],
    body: workshopInvoiceDraftBody,
    handle: async () => ({}),
    view: ({ body }) => `/api/events/invoice-draft?email=${encodeURIComponent(body.email)}`,
  });

  commandRoute(app, deps, {
    url: '/api/events/confirmInvoice',
    roles: ['admin'],
    body: workshopInvoiceConfirmBody,
    handle: async ({ body }, context) => {
      const { load, run, newId, user } = context;
      // Each registration as its event's stream tells it now.
      const found = [];
      for (const registrationId of body.registrationIds) {
        const eventId = await lookups.eventOfRegistration(registrationId);
        const state = eventId ? await load(workshopStream(eventId), workshopDecider) : undefined;
        const registration = state?.status === 'none' ? undefined : state?.registrations.get(registrationId);
        if (!state || state.status === 'none' || !registration) {
          throw new HttpError(409, 'conflict', 'A registration on this invoice was moved or deleted: please reload.', {
            registrationIds: 'Moved or deleted',
          });
        }
        found.push({ state, registration });
      }
      const email = (found[0]?.registration.contact.email ?? '').trim().toLowerCase();
      if (found.some(({ registration }) => registration.contact.email.trim().toLowerCase() !== email)) {
        throw new HttpError(400, 'invalid', 'Every registration on one invoice must be of the same e-mail address.', {
          registrationIds: 'Registrations of another e-mail address',
        });
      }
      const invoiceId = newId();
      const discountPence = toPence(body.discountAmount, 'Discount');
      const account = await run(accountStream(accountKey(email)), accountDecider, {
        type: 'ConfirmWorkshopInvoice',
        invoiceId,
        registrations: found.map(({ state, registration }) => ({
          eventId: state.event.eventId,
          registrationId: registration.registrationId,
          pricePence: workshop.registrationPrice(state.event, registration.places),
        })),
        discountPence,
        actor: { role: user.role, tutorId: user.tutorId },
      });
      if (!account.invoices.has(invoiceId)) throw new Error('an invoice that was just confirmed is missing');
      const first = (found[0] as (typeof found)[number]).registration;
      const linked = found.find(({ registration }) => registration.clientId !== null)?.registration.clientId ?? null;
      const { issued, mailed } = await invoicing.issue(context, {
        invoiceId,
        clientId: linked ?? `registration:${first.registrationId}`,
        billedFor: { kind: 'workshops', id: invoiceId },
        lines: found.map(({ state, registration }) => workshop.registrationLine(state.event, registration.places)),
        discountPence,
        billing: linked
          ? undefined
          : {
              name: `${first.contact.firstName} ${first.contact.lastName}`,
              address: first.contact.address,
              postcode: first.contact.postcode,
              email: first.contact.email,
            },
      });
      return {
        invoice: {
          id: invoiceId,
          reference: issued.invoice.reference,
          total: toPounds(issued.invoice.totalPence),
          discount: toPounds(discountPence),
        },
        mailed,
      };
    },
  });
}
