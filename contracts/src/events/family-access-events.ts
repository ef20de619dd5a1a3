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

export const familyAccessEvents = [
  FamilySignInLinkRequested,
  FamilySignedIn,
  FamilyAccessTurnedOff,
  FamilyAccessTurnedOn,
  FamilyErasureRequested,
  FamilyErasureRequestDecided,
] as const;
type FamilyEvent = EventOf<(typeof familyAccessEvents)[number]>;
export type FamilyAccessEvent = Exclude<FamilyEvent, { type: `FamilyErasureRequest${string}` }>;
export type FamilyErasureRequestEvent = Extract<FamilyEvent, { type: `FamilyErasureRequest${string}` }>;
