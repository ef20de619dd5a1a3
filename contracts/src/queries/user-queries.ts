import { z } from 'zod';
import { sessionUser, staffRole } from '../roles';

/** `GET /api/users/me`: the signed-in user with the name the header shows. */
export const currentUserAnswer = z.object({ user: sessionUser.extend({ name: z.string() }) });
export type CurrentUserAnswer = z.infer<typeof currentUserAnswer>;

/** One login on Settings → Logins. */
export const loginListItem = z.object({
  id: z.string(),
  name: z.string(),
  username: z.string(),
  /** Staff logins only: a family's login is its contact's (docs/family-access.md), not listed here. */
  role: staffRole,
  tutorId: z.string().nullable(),
  tutorName: z.string().nullable(),
  /** false once an admin turned it off. */
  active: z.boolean(),
  /**
   * Whether a password reset link can be e-mailed to it now: only a login linked to a tutor has an
   * address (the tutor's), and a turned-off login or an ended tutor's gets none.
   */
  resetByEmail: z.boolean(),
});

/** `GET /api/users` (admins and auditors): every login, and the tutors who have not activated theirs. */
export const loginsAnswer = z.object({
  logins: z.array(loginListItem),
  /** Tutors working for the agency without a login yet: their activation e-mail can be sent (again). */
  awaitingActivation: z.array(
    z.object({ tutorId: z.string(), name: z.string(), username: z.string(), activationSent: z.boolean() }),
  ),
});
export type LoginsAnswer = z.infer<typeof loginsAnswer>;
export type LoginListItem = z.infer<typeof loginListItem>;
