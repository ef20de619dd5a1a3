import { z } from 'zod';
import { defineEvent, type EventOf } from './define';

/** A workshop event's date and start time in the agency's time zone: `YYYY-MM-DDTHH:mm`. */
export const localDateTime = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/, 'Date and time must look like 2026-07-20T10:00');

export const workshopEventDetails = z.object({
  eventId: z.string(),
  description: z.string(),
  dateTime: localDateTime,
  durationMinutes: z.number().int().positive(),
  /** The price per child. */
  pricePence: z.number().int().min(0),
  /** Places, one per child. */
  capacity: z.number().int().positive(),
  location: z.string(),
});
export type WorkshopEventDetails = z.infer<typeof workshopEventDetails>;

/** Who booked: personal data (encrypted under the registration's data subject). */
export const registrationContact = z.object({
  firstName: z.string(),
  lastName: z.string(),
  address: z.array(z.string()),
  postcode: z.string(),
  email: z.string(),
  phone: z.string(),
});
export type RegistrationContact = z.infer<typeof registrationContact>;

/** A child booked on a workshop; `allergies` is health data, seen by admins only. */
export const registrationChild = z.object({
  firstName: z.string(),
  lastName: z.string(),
  school: z.string(),
  schoolYear: z.string(),
  allergies: z.string(),
});
export type RegistrationChild = z.infer<typeof registrationChild>;

/**
 * A registration as booked (or moved in from another event). `clientId`: the family whose
 * contact has the booking's e-mail, or null for a public booking of no known family (its own data
 * subject). `places` (its children) stays in clear so the capacity holds after an erasure.
 */
export const registrationDetails = z.object({
  eventId: z.string(),
  registrationId: z.string(),
  clientId: z.string().nullable(),
  contact: registrationContact,
  children: z.array(registrationChild),
  places: z.number().int().positive(),
  comments: z.string(),
  status: z.enum(['registered', 'waitlisted']),
  /** The event it was moved from, or null when booked here. */
  movedFrom: z.string().nullable(),
  /**
   * The workshop account it is invoiced on (`workshop-account-{accountKey}`), fixed at booking so
   * the workflows that credit or move it never depend on the e-mail address, which an erasure
   * turns into "Erased". Absent from bookings recorded before it was kept (their address gives it).
   */
  accountKey: z.string().max(64).optional(),
});
export type RegistrationDetails = z.infer<typeof registrationDetails>;

export const WorkshopEventScheduled = defineEvent('WorkshopEventScheduled', 1, workshopEventDetails);
export const WorkshopEventChanged = defineEvent('WorkshopEventChanged', 1, workshopEventDetails);
export const WorkshopEventCancelled = defineEvent('WorkshopEventCancelled', 1, z.object({ eventId: z.string() }));
export const WorkshopRegistrationMade = defineEvent('WorkshopRegistrationMade', 1, registrationDetails);
const registrationRef = z.object({ eventId: z.string(), registrationId: z.string() });
/** A waiting-list registration given a place. */
export const WorkshopRegistrationPlaced = defineEvent('WorkshopRegistrationPlaced', 1, registrationRef);
export const WorkshopRegistrationDeleted = defineEvent('WorkshopRegistrationDeleted', 1, registrationRef);
export const WorkshopRegistrationMovedOut = defineEvent(
  'WorkshopRegistrationMovedOut',
  1,
  registrationRef.extend({ toEventId: z.string() }),
);

/**
 * A workshop invoice, on the stream of the e-mail address it bills (`workshop-account-{key}`), so
 * a registration is invoiced at most once however many confirms race. The family invoice itself
 * (reference, PDF, payments, credit notes) is `invoiceId`'s own stream.
 */
export const WorkshopInvoiceConfirmed = defineEvent(
  'WorkshopInvoiceConfirmed',
  1,
  z.object({
    invoiceId: z.string(),
    registrations: z.array(
      z.object({ eventId: z.string(), registrationId: z.string(), pricePence: z.number().int().min(0) }),
    ),
    discountPence: z.number().int().min(0),
  }),
);
/**
 * A public booking of no known family (its own data subject, `registration:{id}`) had its
 * personal data erased: its key destroyed, so its contact, children and comments read "Erased".
 * Who did it is the event's metadata, why is `reason`; on the stream of the event it was last on.
 */
export const WorkshopRegistrationErased = defineEvent(
  'WorkshopRegistrationErased',
  1,
  registrationRef.extend({ reason: z.string(), erasedAt: z.iso.datetime() }),
);
/**
 * A booking asked for by someone not signed in (docs/limits.md, "Public bookings"): of no family
 * yet (its own data subject, `registration:{id}`), holding its places until `expiresAt` when the
 * event had room (`held`), or waiting to join the waiting list. It becomes a registration
 * (`WorkshopRegistrationMade`, linked to the family of its address) only when the address confirms
 * it from the e-mailed link, whose secret is never in an event (`linkId` names it); unconfirmed,
 * it lapses.
 */
export const WorkshopBookingRequested = defineEvent(
  'WorkshopBookingRequested',
  1,
  z.object({
    eventId: z.string(),
    registrationId: z.string(),
    contact: registrationContact,
    children: z.array(registrationChild),
    places: z.number().int().positive(),
    comments: z.string(),
    held: z.boolean(),
    expiresAt: z.iso.datetime(),
    linkId: z.string(),
  }),
);
/** A requested booking not confirmed in time: its places are free again and its personal data is destroyed. */
export const WorkshopBookingLapsed = defineEvent('WorkshopBookingLapsed', 1, registrationRef);
/** Its family invoice was credited: its registrations are not invoiced any more. */
export const WorkshopInvoiceCredited = defineEvent('WorkshopInvoiceCredited', 1, z.object({ invoiceId: z.string() }));

export const workshopEvents = [
  WorkshopEventScheduled,
  WorkshopEventChanged,
  WorkshopEventCancelled,
  WorkshopRegistrationMade,
  WorkshopRegistrationPlaced,
  WorkshopRegistrationDeleted,
  WorkshopRegistrationMovedOut,
  WorkshopRegistrationErased,
  WorkshopInvoiceConfirmed,
  WorkshopInvoiceCredited,
  WorkshopBookingRequested,
  WorkshopBookingLapsed,
] as const;
export type WorkshopEvent = EventOf<(typeof workshopEvents)[number]>;
