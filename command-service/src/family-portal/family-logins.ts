import type { SessionUser } from '@agency/contracts';
import { familyAccess } from '@agency/domain';
import type { Sessions } from '@agency/platform/sessions';
import type pg from 'pg';

import type { ResetLimits } from '../auth/reset-throttle';

/** How long a family's sign-in link works (docs/family-access.md). */
export const FAMILY_LINK_LIFETIME_MS = 15 * 60 * 1000;

/**
 * Links asked for in an hour: per address typed (known or not) and per client address. More than
 * a password reset's: a family signs in on each of its devices, and a link lasts minutes.
 */
export const FAMILY_LINK_LIMITS: ResetLimits = { perAccount: 10, perAddress: 30, windowMs: 60 * 60 * 1000 };

/** Who a family login is in a token: its contact's own user id, and its family. */
export const familySessionUser = (contactId: string, clientId: string): SessionUser => {
  const id = familyAccess.familyUserId(contactId);
  return { id, username: id, role: 'family', clientId };
};

/**
 * A contact's logins are over: every link still out is spent and every session ended. Done when
 * an admin turns the access off and when the family is erased; idempotent (ending ended sessions
 * ends none), so a retry does it again harmlessly. Answers how many sessions were live.
 */
export async function endFamilyLogins(
  db: pg.Pool,
  sessions: Pick<Sessions, 'endAllFor'>,
  contactIds: readonly string[],
  reason: 'login-turned-off' | 'account-ended',
): Promise<number> {
  if (contactIds.length === 0) return 0;
  await db.query(
    'update auth.family_sign_in_links set used_at = now() where contact_id = any($1) and used_at is null',
    [[...contactIds]],
  );
  let ended = 0;
  for (const contactId of contactIds) ended += await sessions.endAllFor(familyAccess.familyUserId(contactId), reason);
  return ended;
}
