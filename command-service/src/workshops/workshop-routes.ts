import { createHash, randomUUID } from 'node:crypto';
import {
  adminBookingBody,
  bookingBody,
  bookingConfirmBody,
  ERASED,
  LIMITS,
  registrationDeleteBody,
  registrationMoveBody,
  registrationPlaceBody,
  registrationSubject,
  type SessionUser,
  workshopEventBody,
  workshopEventCancelBody,
  workshopInvoiceConfirmBody,
  workshopInvoiceDraftBody,
} from '@agency/contracts';
import { familyInvoice, nowLocalIn, toPence, toPounds, workshop } from '@agency/domain';
import { describeOnly, HttpError, invalidInput, notFound } from '@agency/platform';
import type { PersonalDataVault } from '@agency/platform/personal-data';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { ResetThrottle } from '../auth/reset-throttle';
import type { FamilyInvoicing } from '../family-invoices/family-invoicing';
import { MAIL_REACTOR } from '../mail/mail-reactor-name';
import {
  type CommandContext,
  type CommandDependencies,
  commandRoute,
  createCommandContext,
  derivedId,
  domainToHttp,
} from '../pipeline/command-pipeline';
import { racePoint } from '../race-points';
import { bookingLinks } from './booking-links';
import { workshopAccounts } from './workshop-accounts';
import { workshopLookups } from './workshop-lookups';
import { accountKeyOf, WORKSHOPS_REACTOR, workshopInvoiceOf } from './workshop-reactor';

type Live = Exclude<workshop.WorkshopState, { status: 'none' }>;
type Options = {
  deps: CommandDependencies;
  invoicing: FamilyInvoicing;
  db: pg.Pool;
  timeZone: string;
  /** Destroys a confirmed booking's request copy once it is its family's (absent: no personal-data layer). */
  vault?: Pick<PersonalDataVault, 'shred'>;
};

/** Who a public booking is recorded as (no login): the events' metadata says so. */
const PUBLIC_BOOKER = { id: 'public-booking', username: 'public', role: 'public' } as unknown as SessionUser;

const { workshopDecider, workshopStream, accountDecider, accountStream } = workshop;

/** The event as a command answers it; `now` lets a hold past its time count as free, as the decision did. */
function eventAnswer(state: Live, now?: Date) {
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
    placesLeft: workshop.placesLeft(state, now),
  };
}

/**
 * Workshops: events (admins), the public booking (no login, rate-limited, a honeypot), moves,
 * deletes, places from the waiting list, and workshop invoices issued as family invoices. Each
 * command decides on one stream; what follows (credits, the move out of the old event, the family
 * invoice, the parents' e-mails) is the workshops and mail reactors' doing, which a command waits
 * for briefly so its answer shows it.
 */
export async function workshopRoutes(app: FastifyInstance, options: Options) {
  const { deps, invoicing, db, timeZone } = options;
  const lookups = workshopLookups(db);
  // Public bookings per e-mail address and per client address, in the database like reset requests.
  const throttle = new ResetThrottle(db, 'booking', {
    perAccount: LIMITS.maxBookingsPerEmailAnHour,
    perAddress: LIMITS.maxBookingsPerAddressAnHour,
    windowMs: 60 * 60 * 1000,
  });
  const nowLocal = (context: CommandContext) => nowLocalIn(timeZone, context.now);
  const links = bookingLinks(db);
  const accounts = workshopAccounts(db);

  async function loadLive(context: CommandContext, eventId: string): Promise<Live> {
    const state = await context.load(workshopStream(eventId), workshopDecider);
    if (state.status === 'none') throw notFound('There is no such event.');
    return state;
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
      await loadLive(context, body.id);
      const cancelled = await context.run(workshopStream(body.id), workshopDecider, {
        type: 'CancelEvent',
        actor: { role: context.user.role, tutorId: context.user.tutorId },
      });
      if (cancelled.status === 'none') throw new Error('an event that was just cancelled is missing');
      // Its invoices are credited by the workshops reactor: the answer waits for it a moment.
      await context.settle([WORKSHOPS_REACTOR]);
      return { event: eventAnswer(cancelled) };
    },
  });

  // The public booking: no login, so it is bounded here rather than by a session. It is only
  // *requested* until its address confirms it from the e-mailed link (docs/limits.md, "Public
  // bookings"): until then it holds its places for a while, links to no family and is mailed
  // nothing the booker typed but the children's first names.
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
      // Of this command and this event: one command id sent for two events books two registrations.
      const registrationId = derivedId(commandId, 'registration', eventId);
      // A honeypot filled in: answered as a booking, nothing recorded.
      if (body.website) return { registration: { id: registrationId, status: 'requested', held: true } };
      // Keyed by a digest of the address, so the throttle's rows hold no e-mail an erasure would miss.
      const bookerKey = createHash('sha256').update(body.contact.email.toLowerCase()).digest('hex');
      if (!(await throttle.admit([`email:${bookerKey}`], request.ip))) {
        throw new HttpError(429, 'too_many_attempts', 'Too many bookings from here: please try again later.');
      }
      const { context, appendedUpTo } = createCommandContext(deps, PUBLIC_BOOKER, commandId, commandId);
      const link = await links.prepare(
        eventId,
        registrationId,
        derivedId(commandId, 'booking-link', eventId),
        context.now,
      );
      try {
        // A repeated booking (the same command id) finds its request; its e-mail follows from the event, once.
        // A class's worth of parents may book one event at the same moment: its stream is contended.
        const state = await context.run(
          workshopStream(eventId),
          workshopDecider,
          {
            type: 'RequestBooking',
            registration: {
              registrationId,
              contact: body.contact,
              children: body.children,
              comments: body.comments,
            },
            linkId: link.linkId,
            nowLocal: nowLocal(context),
            now: context.now,
          },
          'contended',
        );
        if (state.status === 'none') throw notFound('There is no such event.');
        const position = appendedUpTo();
        if (position) await deps.projections.waitFor(position, 5000);
        const asked = state.requests.get(registrationId);
        if (asked) {
          // The places left for others: for a request bound for the waiting list, what it did not fit in.
          const placesLeft = workshop.placesLeft(state, context.now);
          return {
            registration: {
              id: registrationId,
              status: 'requested',
              held: asked.held,
              expiresAt: asked.expiresAt,
              places: asked.places,
              placesLeft,
            },
          };
        }
        // A retry after the address confirmed it (or after it lapsed): as it stands.
        const made = state.registrations.get(registrationId);
        return { registration: { id: registrationId, status: made?.status ?? 'lapsed', held: false } };
      } catch (error) {
        // Refused: nothing was recorded, so neither is its link.
        const state = await context.load(workshopStream(eventId), workshopDecider).catch(() => undefined);
        const recorded =
          state?.status !== 'none' && (state?.requests.has(registrationId) || state?.registrations.has(registrationId));
        if (state && !recorded) await links.discard(registrationId, link.linkId);
        throw domainToHttp(error);
      }
    },
  );

  // The e-mailed link: the address confirms its booking, which then takes its places for good
  // (or joins the waiting list) and is linked to the family of that address, if any.
  app.post(
    '/api/public/bookings/confirm',
    { bodyLimit: 1_024, schema: { body: bookingConfirmBody }, validatorCompiler: describeOnly },
    async (request) => {
      const parsed = bookingConfirmBody.safeParse(request.body ?? {});
      if (!parsed.success) throw invalidInput(parsed.error.issues);
      const found = await links.find(parsed.data.token);
      if (!found) {
        throw new HttpError(
          404,
          'not_found',
          'This link is not one we sent, or its booking lapsed: please book again.',
        );
      }
      const { eventId, registrationId } = found;
      // One confirmation per booking, however many clicks: its command id is the booking's.
      const commandId = derivedId('confirm-booking', registrationId);
      const { context, appendedUpTo } = createCommandContext(deps, PUBLIC_BOOKER, commandId, commandId);
      try {
        const before = await context.load(workshopStream(eventId), workshopDecider);
        const asked = before.status === 'none' ? undefined : before.requests.get(registrationId);
        const email = asked?.contact.email;
        const clientId = email ? await lookups.familyWithEmail(email) : null;
        const account = email
          ? await accounts.accountFor(email, clientId ?? registrationSubject({ registrationId }))
          : '';
        const state = await context.run(
          workshopStream(eventId),
          workshopDecider,
          {
            type: 'ConfirmBooking',
            registrationId,
            clientId,
            accountKey: account,
            nowLocal: nowLocal(context),
            now: context.now,
          },
          'contended',
        );
        if (state.status === 'none') throw notFound('There is no such event.');
        const registration = state.registrations.get(registrationId);
        if (!registration) throw new Error('a booking that was just confirmed is missing');
        // Now the family's (sealed under its key): the request's own copy is destroyed.
        if (registration.clientId !== null)
          await options.vault?.shred(registrationSubject({ registrationId }), context.now);
        const position = appendedUpTo();
        if (position) await deps.projections.waitFor(position, 5000);
        return {
          registration: { id: registrationId, status: registration.status, places: registration.places },
          event: eventAnswer(state, context.now),
        };
      } catch (error) {
        throw domainToHttp(error);
      }
    },
  );

  // An admin books on a parent's behalf: no link to confirm, linked at once to the family of the address.
  commandRoute(app, deps, {
    url: '/api/events/register',
    roles: ['admin'],
    body: adminBookingBody,
    handle: async ({ body }, context) => {
      const registrationId = derivedId(context.commandId, 'registration', body.eventId);
      const clientId = await lookups.familyWithEmail(body.contact.email);
      const state = await context.run(workshopStream(body.eventId), workshopDecider, {
        type: 'Register',
        registration: {
          registrationId,
          clientId,
          contact: body.contact,
          children: body.children,
          comments: body.comments,
          accountKey: await accounts.accountFor(
            body.contact.email,
            clientId ?? registrationSubject({ registrationId }),
          ),
        },
        nowLocal: nowLocal(context),
        now: context.now,
      });
      const registration = state.status === 'none' ? undefined : state.registrations.get(registrationId);
      if (state.status === 'none' || !registration) throw notFound('There is no such event.');
      return {
        registration: { id: registrationId, status: registration.status, places: registration.places },
        event: eventAnswer(state, context.now),
      };
    },
  });

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
      if (!registration) {
        // A retry of a move that is done (moved out by the reactor already) answers as the move did.
        const to = await context.load(workshopStream(toEventId), workshopDecider);
        const moved = to.status === 'none' ? undefined : to.registrations.get(registrationId);
        if (to.status === 'none' || moved?.movedFrom !== fromEventId) {
          throw notFound('There is no such registration on this event.');
        }
        return { registration: { id: registrationId, eventId: toEventId }, event: eventAnswer(to) };
      }
      const key = accountKeyOf(registration);
      const account = key ? await context.load(accountStream(key), accountDecider) : undefined;
      const invoiced = key
        ? (account?.invoiced.get(registrationId) ?? null)
        : await lookups.invoicedPriceOf(registrationId);
      // Into the new event (its capacity decides); the workshops reactor then takes it out of the old one.
      const to = await context.run(workshopStream(toEventId), workshopDecider, {
        type: 'MoveIn',
        registration,
        fromEventId,
        invoicedPricePence: invoiced === null ? null : typeof invoiced === 'number' ? invoiced : invoiced.pricePence,
        nowLocal: nowLocal(context),
        now: context.now,
        actor,
        erased: from.erased.has(registrationId),
      });
      if (to.status === 'none') throw notFound('There is no such event to move to.');
      await context.settle([WORKSHOPS_REACTOR]);
      return { registration: { id: registrationId, eventId: toEventId }, event: eventAnswer(to) };
    },
  });

  commandRoute(app, deps, {
    url: '/api/events/delete',
    roles: ['admin'],
    body: registrationDeleteBody,
    handle: async ({ body }, context) => {
      await context.run(workshopStream(body.eventId), workshopDecider, {
        type: 'DeleteRegistration',
        registrationId: body.registrationId,
        actor: { role: context.user.role, tutorId: context.user.tutorId },
      });
      // Its invoice is credited by the workshops reactor: the answer waits for it a moment.
      await context.settle([WORKSHOPS_REACTOR]);
      return { registration: { id: body.registrationId, deleted: true } };
    },
  });

  commandRoute(app, deps, {
    url: '/api/events/createInvoice',
    roles: ['admin'],
    body: workshopInvoiceDraftBody,
    handle: async () => ({}),
    view: ({ body }, _answer, views) => views.invoiceDraft({ email: body.email }),
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
        if (state.status === 'cancelled') {
          throw new HttpError(
            409,
            'conflict',
            `${state.event.description} was cancelled: its registrations are not invoiced.`,
            {
              registrationIds: 'Cancelled',
            },
          );
        }
        // Only a booking with a place is billed: one on the waiting list has nothing to pay for yet.
        if (registration.status !== 'registered') {
          throw new HttpError(
            409,
            'conflict',
            `A booking on this invoice is on the waiting list of ${state.event.description}: only bookings with a place are invoiced.`,
            { registrationIds: 'On the waiting list' },
          );
        }
        found.push({ state, registration, key: accountKeyOf(registration) });
      }
      if (found.some(({ state, registration, key }) => key === null || state.erased.has(registration.registrationId))) {
        throw new HttpError(
          409,
          'conflict',
          'A booking on this invoice had its personal data erased: it cannot be invoiced.',
          {
            registrationIds: 'Erased',
          },
        );
      }
      const key = found[0]?.key ?? '';
      if (found.some((entry) => entry.key !== key)) {
        throw new HttpError(400, 'invalid', 'Every registration on one invoice must be of the same e-mail address.', {
          registrationIds: 'Registrations of another e-mail address',
        });
      }
      const invoiceId = newId();
      const discountPence = toPence(body.discountAmount, 'Discount');
      // The family invoice that will follow, checked now: once the account says "invoiced", it is issued.
      const invoice = workshopInvoiceOf(
        found.map(({ state, registration }) => ({ event: state.event, registration })),
        invoiceId,
      );
      const billing = invoice.billing ?? (await invoicing.billingOf(load, invoice.clientId));
      if (!billing || billing.email === ERASED) {
        throw new HttpError(409, 'conflict', 'The family of this booking was erased: it cannot be invoiced.', {
          registrationIds: 'Erased',
        });
      }
      const totalPence = familyInvoice.checkInvoice({ billing, lines: invoice.lines, discountPence });
      await racePoint('workshopInvoice.checked');
      const account = await run(accountStream(key), accountDecider, {
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
      // Issued by the workshops reactor, e-mailed by the mail reactor: the answer waits for both a moment.
      await context.settle([WORKSHOPS_REACTOR]);
      const issued = await load(familyInvoice.familyInvoiceStream(invoiceId), familyInvoice.familyInvoiceDecider);
      const mailed = issued.status !== 'none' && (await context.settle([MAIL_REACTOR]));
      return {
        invoice: {
          id: invoiceId,
          reference: issued.status === 'none' ? null : issued.invoice.reference,
          total: toPounds(totalPence),
          discount: toPounds(discountPence),
        },
        mailed,
      };
    },
  });
}
