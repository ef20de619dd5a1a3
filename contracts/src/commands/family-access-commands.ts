import { z } from 'zod';
import { LIMITS } from '../limits';
import { commandId, emailAddress, entityId } from '../values';
import { contactBody } from './client-commands';

/** `POST /auth/family/link`: a family asks for a sign-in link at its address. */
export const familyLinkBody = z.object({ email: emailAddress });
export type FamilyLinkBody = z.infer<typeof familyLinkBody>;

/** `POST /auth/family/session`: the link's secret, spent for a session. */
export const familySessionBody = z.object({
  token: z
    .string({ error: 'The sign-in link is missing its code' })
    .max(LIMITS.maxCodeLength, 'The sign-in link is missing its code')
    .trim()
    .min(1, 'The sign-in link is missing its code'),
});
export type FamilySessionBody = z.infer<typeof familySessionBody>;

/** `POST /api/clients/family-access/:contactId`: an admin turns a contact's access off or on. */
export const familyAccessBody = z.object({
  commandId,
  active: z.boolean({ error: 'active must be true or false' }),
});
export type FamilyAccessBody = z.infer<typeof familyAccessBody>;

/** `POST /api/clients/family-sessions/end/:contactId`: an admin ends one session of a contact, or all. */
export const endFamilySessionsBody = z.object({
  commandId,
  sessionId: z.string().min(1).max(100).optional(),
});
export type EndFamilySessionsBody = z.infer<typeof endFamilySessionsBody>;

/** `POST /api/family/bookings`: a signed-in family books places for its own children (no address to type). */
export const familyBookingBody = z.object({
  commandId,
  eventId: entityId('Please choose a workshop'),
  childIds: z
    .array(z.string().min(1).max(LIMITS.maxIdLength), { error: 'Please choose who is coming' })
    .min(1, 'Please choose who is coming')
    .max(LIMITS.maxChildrenPerBooking, `At most ${LIMITS.maxChildrenPerBooking} children in one booking`),
});
export type FamilyBookingBody = z.infer<typeof familyBookingBody>;

/** `POST /api/family/erasure-request`: a signed-in family asks to have its personal data erased. */
export const familyErasureRequestBody = z.object({ commandId });

/** `POST /api/clients/erasure-request/decide/:clientId`: an admin approves or declines a family's request. */
export const erasureDecisionBody = z.object({
  commandId,
  approve: z.boolean({ error: 'approve must be true or false' }),
});

/**
 * `POST /api/family/contact/:contactId`: a signed-in family corrects one of its own contacts'
 * phone numbers and address (recorded at once). Every part is required, as on the office's form.
 */
export const familyContactBody = contactBody.pick({ commandId: true, address: true, postcode: true, phone: true });
export type FamilyContactBody = z.infer<typeof familyContactBody>;

/** `POST /api/family/email-change/:contactId`: a signed-in family asks for a contact's e-mail address to change. */
export const familyEmailChangeBody = z.object({ commandId, email: emailAddress });

/** `POST /api/clients/email-change/decide/:contactId`: an admin confirms or declines the family's new address. */
export const emailChangeDecisionBody = z.object({
  commandId,
  approve: z.boolean({ error: 'approve must be true or false' }),
});
