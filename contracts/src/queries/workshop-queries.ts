import { z } from 'zod';
import { calendarDate } from '../values';
import { queryId, yesFlag } from './query-values';

/** `GET /api/events?includePast=Y|N`: upcoming events (every event with `Y`), soonest first. */
export const eventListQuery = z.object({ includePast: yesFlag });

export const eventView = z.object({
  id: z.string(),
  description: z.string(),
  /** `YYYY-MM-DDTHH:mm`, agency time. */
  dateTime: z.string(),
  durationMinutes: z.number(),
  price: z.number(),
  capacity: z.number(),
  location: z.string(),
  cancelled: z.boolean(),
  /** Registrations with a place; their children take `placesTaken`. */
  count: z.number(),
  placesTaken: z.number(),
  placesLeft: z.number(),
  unInvoiced: z.number(),
  unpaid: z.number(),
  waitlisted: z.number(),
  /**
   * Public bookings awaiting their address's confirmation (docs/limits.md, "Public bookings"):
   * the places held for them (counted in `placesTaken` too, not in `count`), and how many will
   * join the waiting list once confirmed (not in `waitlisted`).
   */
  placesHeld: z.number(),
  waitlistRequests: z.number(),
  /**
   * A cancelled event's crediting (null while it stands): how many invoices billed its registrations
   * when it was cancelled, and the credit notes issued for them so far. Fewer notes than invoices is
   * the crediting workflow under way.
   */
  credits: z
    .object({
      invoices: z.number(),
      creditNotes: z.array(z.object({ id: z.string(), reference: z.string() })),
    })
    .nullable(),
});
export type EventView = z.infer<typeof eventView>;
export const eventListAnswer = z.object({ events: z.array(eventView) });
export type EventListAnswer = z.infer<typeof eventListAnswer>;

export const eventParams = z.object({ eventId: queryId });
export const registrationParams = z.object({ eventId: queryId, registrationId: queryId });

const childView = z.object({
  firstName: z.string(),
  lastName: z.string(),
  school: z.string(),
  schoolYear: z.string(),
  /** Health data: admins (and auditors) only (visibility.ts). */
  allergies: z.string().optional(),
});
export const registrationView = z.object({
  id: z.string(),
  eventId: z.string(),
  clientId: z.string().nullable(),
  status: z.enum(['registered', 'waitlisted']),
  contact: z.object({
    firstName: z.string(),
    lastName: z.string(),
    address: z.array(z.string()),
    postcode: z.string(),
    email: z.string(),
    phone: z.string(),
  }),
  children: z.array(childView),
  comments: z.string(),
  price: z.number(),
  invoiceId: z.string().nullable(),
  invoiceRef: z.string().nullable(),
  paid: z.boolean(),
  /**
   * A move under way (the move-out from the old event not recorded yet), so on two events at once:
   * on the new event's list it is moving `from` the old event, on the old event's list `to` the new.
   */
  moving: z.object({ direction: z.enum(['from', 'to']), eventId: z.string(), event: z.string() }).nullable(),
});
export type RegistrationView = z.infer<typeof registrationView>;

/**
 * A registration deleted from the event whose invoice is not credited yet (the crediting workflow
 * under way); it leaves the list once the credit note is issued. `invoiceRef` is null until the
 * invoice itself is issued.
 */
export const creditingRegistrationView = z.object({
  id: z.string(),
  parent: z.string(),
  children: z.array(z.string()),
  invoiceId: z.string(),
  invoiceRef: z.string().nullable(),
});
export type CreditingRegistrationView = z.infer<typeof creditingRegistrationView>;

/**
 * `GET /api/events/registrations/{eventId}`: the event and its registrations (waiting list last),
 * and the deleted ones still being credited.
 */
export const eventRegistrationsAnswer = z.object({
  event: eventView,
  registrations: z.array(registrationView),
  crediting: z.array(creditingRegistrationView),
});
export type EventRegistrationsAnswer = z.infer<typeof eventRegistrationsAnswer>;

/** `GET /api/events/registrations/{eventId}/{registrationId}`: with the family's other events. */
export const registrationAnswer = z.object({
  event: eventView,
  registration: registrationView.extend({
    deleted: z.boolean(),
    other: z.array(z.object({ eventId: z.string(), event: z.string(), date: z.string() })),
  }),
});
export type RegistrationAnswer = z.infer<typeof registrationAnswer>;

/** `GET /api/events/alternatives/{eventId}`: upcoming, not cancelled, with room. */
export const alternativesAnswer = z.object({ events: z.array(eventView) });
export type AlternativesAnswer = z.infer<typeof alternativesAnswer>;

/** The draft of a workshop invoice: every not-yet-invoiced registration of that e-mail, included. */
export const workshopInvoiceDraftQuery = z.object({ email: z.string().max(254) });
export const workshopInvoiceDraft = z.object({
  email: z.string(),
  registrations: z.array(
    z.object({
      id: z.string(),
      eventId: z.string(),
      event: z.string(),
      date: z.string(),
      children: z.array(z.string()),
      price: z.number(),
      included: z.boolean(),
    }),
  ),
  discount: z.number(),
  total: z.number(),
});
export type WorkshopInvoiceDraft = z.infer<typeof workshopInvoiceDraft>;

/** `GET /api/reports/workshops?from&to`: per event, its registrations (upcoming by default). */
export const workshopsReportQuery = z.object({ from: calendarDate.optional(), to: calendarDate.optional() });
export const workshopsReportAnswer = z.object({
  groups: z.array(z.object({ event: eventView, registrations: z.array(registrationView) })),
});
export type WorkshopsReportAnswer = z.infer<typeof workshopsReportAnswer>;

/** `GET /api/public/events`: what the booking page shows, no personal data. */
export const publicEventView = eventView.pick({
  id: true,
  description: true,
  dateTime: true,
  durationMinutes: true,
  price: true,
  location: true,
  placesLeft: true,
});
/**
 * With the agency that runs them, as the public may see it: its name, and the address to write to
 * about the personal data a booking gives (the booking page's privacy notice). Nothing else of the
 * agency's details (bank, phone, invoicing) is in it.
 */
export const publicAgencyView = z.object({ name: z.string(), email: z.string() });
export const publicEventsAnswer = z.object({ agency: publicAgencyView, events: z.array(publicEventView) });
export type PublicEventsAnswer = z.infer<typeof publicEventsAnswer>;
export type PublicEventView = z.infer<typeof publicEventView>;
export type PublicAgencyView = z.infer<typeof publicAgencyView>;
