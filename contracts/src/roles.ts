import { z } from 'zod';

/** An auditor reads everything an admin reads and changes nothing (no command route lists it). */
export const role = z.enum(['admin', 'partner', 'tutor', 'auditor']);
export type Role = z.infer<typeof role>;

/** A login that acts for a tutor (partner, tutor) is linked to one; admins and auditors are not. */
export const linkedToTutor = (role: Role): boolean => role === 'partner' || role === 'tutor';

/** The office: reads every tutor's data (the tutor selector, All tutors); a tutor reads only their own. */
export const readsEveryTutor = (role: Role): boolean => role !== 'tutor';

/** Reads what only admins see (sessions, audit trails, every screen); only an admin also changes it. */
export const readsAsAdmin = (role: Role): boolean => role === 'admin' || role === 'auditor';

/** Who is acting: carried in the session token and in every event's metadata. */
export const sessionUser = z.object({
  id: z.string(),
  username: z.string(),
  role,
  tutorId: z.string().optional(),
});
export type SessionUser = z.infer<typeof sessionUser>;
