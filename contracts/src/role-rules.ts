/**
 * The roles and the rules read from a role alone, as plain functions with no schema library:
 * the UI's first load (sign-in, the shell, the clients list) needs these and none of zod.
 */
export const STAFF_ROLES = ['admin', 'partner', 'tutor', 'auditor'] as const;
/**
 * `family`: a family's contact, signed in by an e-mailed link, who sees only its own family's
 * records through the family routes and no other route (docs/family-access.md).
 */
export const ROLES = [...STAFF_ROLES, 'family'] as const;
export type Role = (typeof ROLES)[number];

/** A login that acts for a tutor (partner, tutor) is linked to one; admins and auditors are not. */
export const linkedToTutor = (role: Role): boolean => role === 'partner' || role === 'tutor';

/** The office: reads every tutor's data (the tutor selector, All tutors); a tutor reads only their own. */
export const readsEveryTutor = (role: Role): boolean => role !== 'tutor' && role !== 'family';

/** Reads what only admins see (sessions, audit trails, every screen); only an admin also changes it. */
export const readsAsAdmin = (role: Role): boolean => role === 'admin' || role === 'auditor';

/**
 * Changes the agency's records (families, tutors, engagements, consultations, workshops, its own
 * details): admins only. Everyone else reads; tutors and partners change only their own lessons
 * and invoices, as the lessons and invoices answers say (`canAddLessons`).
 */
export const managesAgency = (role: Role): boolean => role === 'admin';

/** The streams about tutors' work, whose history a partner may read. */
const TUTOR_STREAMS = /^(tutor|engagement|timesheet|invoice)-/;

/** Admins and auditors read the history of any stream, partners that of tutor-related ones, tutors none. */
export const mayReadHistoryOf = (role: Role, streamId: string) =>
  readsAsAdmin(role) || (role === 'partner' && TUTOR_STREAMS.test(streamId));
