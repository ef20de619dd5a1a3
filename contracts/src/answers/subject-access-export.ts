import { z } from 'zod';

/**
 * What a subject-access export holds: `export.json` in the zip of `GET /api/clients/{id}/export`
 * (a family) and of `GET /api/workshops/registrations/{id}/export` (a booking of no known family).
 * It is written for the data subject to read, so it holds their own data in their words and
 * nothing of the agency's business: no rate, commission or partner share, no tutor's pay or
 * tutor's invoice, no internal state, and no member of staff by name, login or id (who did
 * something is named by role: "the agency", "the tutor"). A zip never passes the answers'
 * field-visibility rule (visibility.ts), so the export is parsed through these schemas before it is
 * zipped: a field is in the file only when it is listed here (docs/personal-data.md).
 *
 * Money is in pounds, dates are `YYYY-MM-DD`, instants are the agency's time `YYYY-MM-DD HH:mm:ss`.
 * A later family login can answer the same shapes.
 */

/** One change in the history, in the subject's words: when, by whom (a role, never a person) and what. */
export const exportHistoryEntry = z.object({
  when: z.string(),
  /** "the agency", "the tutor", "an online booking" or "you". */
  by: z.string(),
  what: z.string(),
});
export type ExportHistoryEntry = z.infer<typeof exportHistoryEntry>;

/** A family invoice as the family received it, with what was paid, what is owed and its credit note. */
export const exportInvoice = z.object({
  reference: z.string(),
  date: z.string(),
  dueDate: z.string(),
  /** Whom it was addressed to when it was issued ("Erased" after an erasure). */
  billedTo: z.object({ name: z.string(), address: z.array(z.string()), postcode: z.string(), email: z.string() }),
  lines: z.array(z.object({ description: z.string(), amount: z.number() })),
  total: z.number(),
  paid: z.number(),
  /** Nothing once credited. */
  owed: z.number(),
  /** The credit note that cancelled the whole invoice, or null. */
  creditNote: z.object({ reference: z.string(), date: z.string(), reason: z.string(), total: z.number() }).nullable(),
});
export type ExportInvoice = z.infer<typeof exportInvoice>;

export const exportPayment = z.object({ invoice: z.string(), date: z.string(), amount: z.number() });
export type ExportPayment = z.infer<typeof exportPayment>;

/** A workshop booking on one event (a booking moved to another event is on each). */
export const exportWorkshopBooking = z.object({
  event: z.string(),
  /** The event's start, `YYYY-MM-DD HH:mm`, agency time. */
  date: z.string(),
  location: z.string(),
  eventCancelled: z.boolean(),
  status: z.enum(['booked', 'on the waiting list', 'cancelled', 'moved to another event']),
  bookedBy: z.object({
    firstName: z.string(),
    lastName: z.string(),
    address: z.array(z.string()),
    postcode: z.string(),
    email: z.string(),
    phone: z.string(),
  }),
  children: z.array(
    z.object({
      firstName: z.string(),
      lastName: z.string(),
      school: z.string(),
      schoolYear: z.string(),
      allergies: z.string(),
    }),
  ),
  comments: z.string(),
});
export type ExportWorkshopBooking = z.infer<typeof exportWorkshopBooking>;

/** Everything held about a family. */
export const familyDataExport = z.object({
  exportedAt: z.string(),
  family: z.object({ id: z.string(), since: z.string() }),
  contacts: z.array(
    z.object({
      firstName: z.string(),
      lastName: z.string(),
      address: z.array(z.string()),
      postcode: z.string(),
      email: z.string(),
      phone: z.array(z.object({ type: z.string(), number: z.string() })),
      dateOfBirth: z.string().nullable(),
    }),
  ),
  children: z.array(z.object({ firstName: z.string(), lastName: z.string(), dateOfBirth: z.string().nullable() })),
  /** Each child's tutoring with one tutor: when, and the subjects now. */
  tutoring: z.array(
    z.object({
      child: z.string(),
      tutor: z.string(),
      startDate: z.string(),
      endDate: z.string().nullable(),
      subjects: z.array(z.string()),
    }),
  ),
  /** The lessons delivered: when, to which child, by which tutor, in which subjects, how long. */
  lessons: z.array(
    z.object({
      date: z.string(),
      child: z.string(),
      tutor: z.string(),
      subjects: z.array(z.string()),
      hours: z.number(),
    }),
  ),
  consultations: z.array(
    z.object({
      date: z.string(),
      child: z.string(),
      amount: z.number(),
      assessment: z.object({ subjects: z.array(z.string()), tutor: z.string().nullable() }).nullable(),
      cancelled: z.boolean(),
    }),
  ),
  invoices: z.array(exportInvoice),
  payments: z.array(exportPayment),
  workshopBookings: z.array(exportWorkshopBooking),
  history: z.array(exportHistoryEntry),
});
export type FamilyDataExport = z.infer<typeof familyDataExport>;

/** Everything held about a workshop booking of no known family (its own data subject). */
export const bookingDataExport = z.object({
  exportedAt: z.string(),
  booking: z.object({ id: z.string() }),
  workshopBookings: z.array(exportWorkshopBooking),
  invoices: z.array(exportInvoice),
  payments: z.array(exportPayment),
  history: z.array(exportHistoryEntry),
});
export type BookingDataExport = z.infer<typeof bookingDataExport>;
