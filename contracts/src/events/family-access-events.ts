import { z } from 'zod';
import { defineEvent, type EventOf } from './define';

/**
 * A family's access, one stream per contact (`family-access-{contactId}`): a contact with an
 * e-mail address signs in by a one-time link mailed to that address (docs/family-access.md).
 * Only ids and times: never the address, never the link's secret (its hash stays in the command
 * service's table, the secret itself only until it is mailed, kept apart under `linkId`).
 */
const ofContact = { contactId: z.string(), clientId: z.string() };

/** Someone asked for a sign-in link for this contact's address: the mail reactor sends it. */
export const FamilySignInLinkRequested = defineEvent(
  'FamilySignInLinkRequested',
  1,
  z.object({ ...ofContact, linkId: z.string(), expiresAt: z.iso.datetime() }),
);

/** The contact followed a sign-in link: a session of theirs began. */
export const FamilySignedIn = defineEvent('FamilySignedIn', 1, z.object(ofContact));

/** An admin turned this contact's access off: no link is sent to it, none signs it in, its sessions were ended. */
export const FamilyAccessTurnedOff = defineEvent('FamilyAccessTurnedOff', 1, z.object(ofContact));

/** An admin turned this contact's access on again. */
export const FamilyAccessTurnedOn = defineEvent('FamilyAccessTurnedOn', 1, z.object(ofContact));

/**
 * A family asked, from its own login, to have its personal data erased
 * (`family-erasure-request-{clientId}`): an admin decides; the erasure itself is the admin's.
 */
export const FamilyErasureRequested = defineEvent('FamilyErasureRequested', 1, z.object(ofContact));

/** An admin approved or declined the family's request for erasure. */
export const FamilyErasureRequestDecided = defineEvent(
  'FamilyErasureRequestDecided',
  1,
  z.object({ clientId: z.string(), approved: z.boolean() }),
);

/**
 * A family asked, from its own login, for one of its contacts' e-mail address to change
 * (`family-email-change-{contactId}`). The address the contact signs in with stays the old one
 * until an admin confirms; asked again before a decision, the newer address replaces the request.
 * The new address is the family's personal data, sealed with its key.
 */
export const FamilyEmailChangeRequested = defineEvent(
  'FamilyEmailChangeRequested',
  1,
  z.object({ ...ofContact, email: z.string() }),
);

/**
 * An admin confirmed or declined the family's asked-for e-mail address (`email`, the one decided
 * on, sealed as the request's); confirmed, it becomes the contact's address.
 */
export const FamilyEmailChangeDecided = defineEvent(
  'FamilyEmailChangeDecided',
  1,
  z.object({ ...ofContact, email: z.string(), approved: z.boolean() }),
);

export const familyAccessEvents = [
  FamilySignInLinkRequested,
  FamilySignedIn,
  FamilyAccessTurnedOff,
  FamilyAccessTurnedOn,
  FamilyErasureRequested,
  FamilyErasureRequestDecided,
  FamilyEmailChangeRequested,
  FamilyEmailChangeDecided,
] as const;
type FamilyEvent = EventOf<(typeof familyAccessEvents)[number]>;
export type FamilyAccessEvent = Exclude<
  FamilyEvent,
  { type: `FamilyErasureRequest${string}` | `FamilyEmailChange${string}` }
>;
export type FamilyErasureRequestEvent = Extract<FamilyEvent, { type: `FamilyErasureRequest${string}` }>;
export type FamilyEmailChangeEvent = Extract<FamilyEvent, { type: `FamilyEmailChange${string}` }>;
