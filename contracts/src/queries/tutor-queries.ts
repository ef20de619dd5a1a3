import { z } from 'zod';
import { role } from '../roles';
import { contactViewFields, listOrder, nameSearch, queryId, yesFlag } from './query-values';

/**
 * `GET /api/tutors?includeInactive&q&sort&order`: admins and partners; active tutors
 * (`includeInactive=Y`: all), those of the name searched (`q`), by name (or by `sort`).
 */
export const tutorListQuery = z.object({
  includeInactive: yesFlag,
  q: nameSearch,
  ...listOrder(['name', 'email', 'startDate']),
});

export const tutorListItem = z.object({
  id: z.string(),
  name: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  address: z.string(),
  phone: z.string(),
  email: z.string(),
  active: z.boolean(),
  startDate: z.string(),
  endDate: z.string().nullable(),
});
export type TutorListItem = z.infer<typeof tutorListItem>;
export const tutorListAnswer = z.object({ tutors: z.array(tutorListItem) });
export type TutorListAnswer = z.infer<typeof tutorListAnswer>;

export const tutorParams = z.object({ id: queryId });

export const tutorContactView = z.object({
  id: z.string(),
  ...contactViewFields,
});
export type TutorContactView = z.infer<typeof tutorContactView>;

/** A student of the tutor, by engagement; the child's fields are null if the child is unknown. */
export const tutorStudentView = z.object({
  engagementId: z.string(),
  studentId: z.string(),
  clientId: z.string().nullable(),
  name: z.string(),
  startDate: z.string().nullable(),
  endDate: z.string().nullable(),
  rate: z.number().nullable(),
  subjects: z.array(z.string()),
});
export type TutorStudentView = z.infer<typeof tutorStudentView>;

export const tutorView = z.object({
  id: z.string(),
  name: z.string(),
  contact: tutorContactView,
  username: z.string(),
  invoicePrefix: z.string(),
  startDate: z.string(),
  endDate: z.string().nullable(),
  active: z.boolean(),
  accountActive: z.boolean(),
  accountRole: role.nullable(),
  /** Whether an unexpired activation code exists (never the code). */
  activationSent: z.boolean(),
  activationExpiresAt: z.string().nullable(),
  currentStudents: z.array(tutorStudentView),
  formerStudents: z.array(tutorStudentView),
});
export type TutorView = z.infer<typeof tutorView>;
export const tutorAnswer = z.object({ tutor: tutorView });
export type TutorAnswer = z.infer<typeof tutorAnswer>;

/** `GET /api/tutors/:id/sessions`: admins (and auditors); the live sessions of the tutor's login, the most recently active first. */
export const tutorSession = z.object({
  id: z.string(),
  createdAt: z.string(),
  lastSeenAt: z.string(),
  userAgent: z.string().nullable(),
  address: z.string().nullable(),
});
export type TutorSession = z.infer<typeof tutorSession>;
export const tutorSessionsAnswer = z.object({ sessions: z.array(tutorSession) });
export type TutorSessionsAnswer = z.infer<typeof tutorSessionsAnswer>;
