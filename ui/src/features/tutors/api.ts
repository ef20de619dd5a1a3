import type {
  TutorAnswer,
  TutorListAnswer,
  TutorListItem,
  TutorSession,
  TutorSessionsAnswer,
  TutorStudentView,
  TutorView,
} from '@agency/contracts';
import type { ContactFields } from '../../lib/contact-form-values';
import { getJson, postJson } from '../../lib/http';

export type { TutorListItem };

/** A tutor's contact as the forms send it back; the query answer's (`TutorContactView`) is one too. */
export type TutorContact = ContactFields & { id: string };

export type TutorStudent = TutorStudentView;

export type Tutor = TutorView;

export type NewTutor = {
  contact: Omit<TutorContact, 'id'>;
  tutor: { username: string; invoicePrefix: string; startDate?: string | null };
};

type Command = { commandId: string };

/** The columns the tutors list sorts by (GET /api/tutors `sort`). */
export const TUTOR_SORTS = ['name', 'email', 'startDate'] as const;
export type TutorSort = (typeof TUTOR_SORTS)[number];

export type TutorsQuery = { includeInactive: boolean; q?: string; sort?: TutorSort; order?: 'asc' | 'desc' };

export function fetchTutors(query: TutorsQuery, signal?: AbortSignal) {
  const params = new URLSearchParams({ includeInactive: query.includeInactive ? 'Y' : 'N' });
  if (query.q) params.set('q', query.q);
  if (query.sort) params.set('sort', query.sort);
  if (query.order) params.set('order', query.order);
  return getJson<TutorListAnswer>(`/api/tutors?${params}`, signal).then((answer) => answer.tutors);
}

export const fetchTutor = (id: string, signal?: AbortSignal) =>
  getJson<TutorAnswer>(`/api/tutors/${encodeURIComponent(id)}`, signal).then((answer) => answer.tutor);

export const suggestNames = (names: { firstName: string; lastName: string }) =>
  postJson<{ username: string; prefix: string }>('/api/tutors/suggest', names);

export const createTutor = (body: NewTutor & Command) =>
  postJson<{ tutor: { id: string } }>('/api/tutors/contact', body);

/** A tutor's Edit Contact: the contact with the tutor form's rules; username and prefix stay. */
export const saveTutorContact = (body: NewTutor & { tutor: { id: string } } & Command) =>
  postJson<{ tutor: { id: string } }>('/api/tutors/tutor', body);

export const setTutorActive = (id: string, body: { active: boolean; endDate?: string; startDate?: string } & Command) =>
  postJson<{ tutor: { id: string; active: boolean } }>(`/api/tutors/active/${encodeURIComponent(id)}`, { id, ...body });

export const sendActivationEmail = (id: string, body: Command) =>
  postJson<{ tutor: { id: string; activationSent: boolean } }>(`/api/tutors/activate/${encodeURIComponent(id)}`, body);

export const setPartner = (id: string, body: { partner: boolean } & Command) =>
  postJson<{ tutor: { id: string; partner: boolean } }>(`/api/tutors/partner/${encodeURIComponent(id)}`, body);

/** A live session of the tutor's login, as admins see it. */
export type { TutorSession };

export const fetchTutorSessions = (id: string, signal?: AbortSignal) =>
  getJson<TutorSessionsAnswer>(`/api/tutors/${encodeURIComponent(id)}/sessions`, signal).then(
    (answer) => answer.sessions,
  );

/** Ends one live session of the tutor's login, or all of them without `sessionId`. */
export const endTutorSessions = (id: string, body: { sessionId?: string } & Command) =>
  postJson<{ ended: number }>(`/api/tutors/sessions/end/${encodeURIComponent(id)}`, body);

/** An admin's erasure of a terminated tutor's personal data. */
export const eraseTutor = (tutorId: string, body: { reason: string; confirm: true; commandId: string }) =>
  postJson<{ tutor: { id: string; erased: true } }>(`/api/tutors/erase/${encodeURIComponent(tutorId)}`, body);
