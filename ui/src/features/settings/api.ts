import type { LoginListItem, LoginsAnswer, TutorListAnswer } from '@agency/contracts';
import { type AgencyDetails, fetchAgencyDetails } from '../../lib/agency-details';
import { getJson, postJson } from '../../lib/http';

export type { AgencyDetails };
export { fetchAgencyDetails };

export const saveAgencyDetails = (
  body: Omit<AgencyDetails, 'paymentTermsDays' | 'defaultConsultationAmount'> & {
    paymentTermsDays: string;
    defaultConsultationAmount: string;
    commandId: string;
  },
) => postJson<{ agency: AgencyDetails }>('/api/agency', body).then((answer) => answer.agency);

export type { LoginListItem, LoginsAnswer };

/** Every login, and the tutors who have not activated theirs (admins and auditors). */
export const fetchLogins = (signal?: AbortSignal) => getJson<LoginsAnswer>('/api/users', signal);

/** The tutors a partner login may act for (those working for the agency now). */
export const fetchTutorOptions = (signal?: AbortSignal) =>
  getJson<TutorListAnswer>('/api/tutors?includeInactive=N', signal).then((answer) =>
    answer.tutors.map((tutor) => ({ value: tutor.id, label: tutor.name })),
  );

export type NewLogin = {
  role: 'auditor' | 'partner';
  name: string;
  username: string;
  password: string;
  tutorId: string;
};

/** Adds a login (`POST /api/users`): a partner acts for a tutor, an auditor for no one. */
export const addLogin = ({ tutorId, ...login }: NewLogin, commandId: string) =>
  postJson<{ user: { id: string } }>('/api/users', {
    ...login,
    tutorId: login.role === 'partner' ? tutorId : null,
    commandId,
  });

/** Turns a login off (it is signed out everywhere) or on again. */
export const setLoginActive = (userId: string, active: boolean, commandId: string) =>
  postJson<{ login: { id: string; active: boolean } }>(`/api/users/active/${encodeURIComponent(userId)}`, {
    active,
    commandId,
  });

/** The reset flow of the login page: a link to the address on the login's tutor's record. */
export const sendPasswordReset = (username: string) =>
  postJson<{ success: boolean }>('/auth/local/reset', { username });

/** The tutor page's Send Activation Email: a new single-use link to the tutor's address. */
export const sendActivationEmail = (tutorId: string, commandId: string) =>
  postJson<{ tutor: { id: string } }>(`/api/tutors/activate/${encodeURIComponent(tutorId)}`, { commandId });
