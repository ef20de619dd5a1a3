import type {
  FamilyBookingsAnswer,
  FamilyDetailsAnswer,
  FamilyLessonsAnswer,
  FamilyOverviewAnswer,
  PublicEventsAnswer,
} from '@agency/contracts';
import { getJson, postJson } from '../../lib/http';

/** A family's sign-in (docs/family-access.md): a link to the address, then the link spent for a session. */
export const askForLink = (email: string) => postJson<{ success: true }>('/auth/family/link', { email });
export const signInWithLink = (token: string) =>
  postJson<{ token: string; user: { name: string; role: string } }>('/auth/family/session', { token });
export const signOut = () => postJson('/auth/local/logout', {});
/** Counts as the family's activity: the session's idle time starts again. */
export const keepAlive = () => postJson('/auth/local/keepalive', {});

export const fetchOverview = (_: 'own', signal: AbortSignal) =>
  getJson<FamilyOverviewAnswer>('/api/family/overview', signal);
export const fetchDetails = (_: 'own', signal: AbortSignal) =>
  getJson<FamilyDetailsAnswer>('/api/family/details', signal);
export const fetchLessons = (year: number, signal: AbortSignal) =>
  getJson<FamilyLessonsAnswer>(`/api/family/lessons?year=${year}`, signal);
export const fetchBookings = (_: 'own', signal: AbortSignal) =>
  getJson<FamilyBookingsAnswer>('/api/family/bookings', signal);
export const fetchOpenWorkshops = (_: 'open', signal: AbortSignal) =>
  getJson<PublicEventsAnswer>('/api/public/events', signal);

export type FamilyBooking = { booking: { id: string; state: 'confirmed' | 'waiting list'; places: number } };
export const bookAsFamily = (body: { commandId: string; eventId: string; childIds: string[] }) =>
  postJson<FamilyBooking>('/api/family/bookings', body);
export const askForErasure = (commandId: string) =>
  postJson<{ erasureRequest: { state: string } }>('/api/family/erasure-request', { commandId });

/** Links opened in a new tab carry the session's cookie. */
export const documentUrl = (id: string) => `/api/family/invoices/doc/${encodeURIComponent(id)}`;
export const EXPORT_URL = '/api/family/export';

/** The family's calendar feed: a new address (the one before stops working), or none. */
export const makeCalendarFeed = () => postJson<{ feed: { url: string } }>('/api/family/calendar-feed', {});
export const revokeCalendarFeed = () => postJson<{ revoked: number }>('/api/family/calendar-feed/revoke', {});

export type FamilyContactCorrection = {
  commandId: string;
  address: string[];
  postcode: string;
  phone: { type: string; number: string }[];
};
/** A contact's phone and address, corrected by the family at once. */
export const correctContact = (contactId: string, body: FamilyContactCorrection) =>
  postJson<unknown>(`/api/family/contact/${encodeURIComponent(contactId)}`, body);
/** A new e-mail address for a contact: it changes only once an admin confirms it. */
export const askForEmailChange = (contactId: string, body: { commandId: string; email: string }) =>
  postJson<unknown>(`/api/family/email-change/${encodeURIComponent(contactId)}`, body);
