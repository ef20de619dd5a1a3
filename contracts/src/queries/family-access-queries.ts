import { z } from 'zod';
import { calendarYear } from '../values';
import { tutorSession } from './tutor-queries';

/**
 * `GET /api/clients/:id/family-access`: for an admin (or an auditor), each contact of the family
 * with an e-mail address: whether its access is on, and its live sessions (docs/family-access.md).
 */
export const familyAccessAnswer = z.object({
  /** The family's own request to be erased, asked from its login: none, waiting for a decision, or decided. */
  erasureRequest: z.enum(['none', 'pending', 'approved', 'declined']),
  contacts: z.array(
    z.object({
      id: z.string(),
      firstName: z.string(),
      lastName: z.string(),
      email: z.string(),
      familyAccess: z.boolean(),
      sessions: z.array(tutorSession),
      /** The address the family asked this contact's e-mail to change to, waiting for an admin; else null. */
      emailChange: z.string().nullable(),
    }),
  ),
});
export type FamilyAccessAnswer = z.infer<typeof familyAccessAnswer>;

/** `GET /api/family/details`: a signed-in family's own contacts and children. */
export const familyDetailsAnswer = z.object({
  family: z.object({
    id: z.string(),
    contacts: z.array(
      z.object({
        id: z.string(),
        firstName: z.string(),
        lastName: z.string(),
        email: z.string(),
        phone: z.array(z.object({ type: z.string(), number: z.string() })),
        address: z.array(z.string()),
        postcode: z.string(),
      }),
    ),
    children: z.array(z.object({ id: z.string(), firstName: z.string(), lastName: z.string() })),
  }),
});
export type FamilyDetailsAnswer = z.infer<typeof familyDetailsAnswer>;

/** `GET /api/family/lessons?year=`: the lessons delivered to the family's children in a year, newest first. */
export const familyLessonsQuery = z.object({ year: calendarYear.optional() });
export const familyLessonsAnswer = z.object({
  year: z.number(),
  lessons: z.array(
    z.object({ id: z.string(), date: z.string(), child: z.string(), tutor: z.string(), duration: z.number() }),
  ),
});
export type FamilyLessonsAnswer = z.infer<typeof familyLessonsAnswer>;

/** A family's workshop booking as it stands: asked for (not yet confirmed), confirmed, or on the waiting list. */
export const FAMILY_BOOKING_STATES = ['requested', 'confirmed', 'waiting list'] as const;
export type FamilyBookingState = (typeof FAMILY_BOOKING_STATES)[number];
export const familyBookingsAnswer = z.object({
  bookings: z.array(
    z.object({
      id: z.string(),
      eventId: z.string(),
      description: z.string(),
      dateTime: z.string(),
      location: z.string(),
      children: z.array(z.string()),
      state: z.enum(FAMILY_BOOKING_STATES),
      cancelled: z.boolean(),
    }),
  ),
});
export type FamilyBookingsAnswer = z.infer<typeof familyBookingsAnswer>;
