import { z } from 'zod';
import { ROLES, STAFF_ROLES } from './role-rules';

/** An auditor reads everything an admin reads and changes nothing (no command route lists it). */
export const role = z.enum(ROLES);
/** The roles an admin gives a login; a family's login is its contact's, never made by hand. */
export const staffRole = z.enum(STAFF_ROLES);
export { linkedToTutor, managesAgency, type Role, readsAsAdmin, readsEveryTutor } from './role-rules';

/** Who is acting: carried in the session token and in every event's metadata. */
export const sessionUser = z.object({
  id: z.string(),
  username: z.string(),
  role,
  tutorId: z.string().optional(),
  /** A family login's family: all it may read is this client's. */
  clientId: z.string().optional(),
});
export type SessionUser = z.infer<typeof sessionUser>;
