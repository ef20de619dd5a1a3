import type {
  ChildView,
  ClientAnswer,
  ClientChildrenAnswer,
  ClientListAnswer,
  ClientListItem,
  ClientView,
  ContactAnswer,
  FamilyAccessAnswer,
  FamilyOverviewAnswer,
  StudentView,
  TutorListAnswer,
  TutorListItem,
} from '@agency/contracts';
import { PAGE_SIZE } from '../../components/pager';
import type { ContactInput } from '../../lib/contact-form-values';
import { getJson, postJson } from '../../lib/http';

export type { ClientListItem, FamilyOverviewAnswer };

/** A contact as the forms send it back: the query answers' contacts (`ContactView`) are ones too. */
export type Contact = ContactInput & { id: string };

export type Child = ChildView;

export type Client = ClientView;

export type Student = StudentView;

export type TutorOption = Pick<TutorListItem, 'id' | 'name'>;

export type NewContact = Omit<Contact, 'id'>;

type Command = { commandId: string };

/** The columns the clients list sorts by (GET /api/clients `sort`). */
export const CLIENT_SORTS = ['name', 'email', 'students'] as const;
export type ClientSort = (typeof CLIENT_SORTS)[number];

export type ClientsQuery = {
  includeInactive: boolean;
  tutor?: string;
  q?: string;
  sort?: ClientSort;
  order?: 'asc' | 'desc';
  cursor?: string;
};

/**
 * One page of the list (`cursor`: the previous page's `nextCursor`), with the whole list's count.
 * The first page with no filter is the address the page's early script asks for (ui/route-preload.ts).
 */
export function fetchClients(query: ClientsQuery, signal?: AbortSignal) {
  const params = new URLSearchParams({ includeInactive: query.includeInactive ? 'Y' : 'N', limit: String(PAGE_SIZE) });
  if (query.tutor) params.set('tutor', query.tutor);
  if (query.q) params.set('q', query.q);
  if (query.sort) params.set('sort', query.sort);
  if (query.order) params.set('order', query.order);
  if (query.cursor) params.set('cursor', query.cursor);
  return getJson<ClientListAnswer>(`/api/clients?${params}`, signal);
}

export const fetchTutors = (signal?: AbortSignal) =>
  getJson<TutorListAnswer>('/api/tutors?includeInactive=N', signal).then(
    (answer): TutorOption[] => answer.tutors ?? [],
  );

export const fetchClient = (id: string, signal?: AbortSignal) =>
  getJson<ClientAnswer>(`/api/clients/${encodeURIComponent(id)}`, signal).then((answer) => answer.client);

export const fetchContact = (id: string, signal?: AbortSignal) =>
  getJson<ContactAnswer>(`/api/contacts/${encodeURIComponent(id)}`, signal).then((answer) => answer.contact);

export const fetchStudents = (signal?: AbortSignal) =>
  getJson<ClientChildrenAnswer>('/api/clients/all/children', signal).then((answer) => answer.children);

export const createClient = (contact: NewContact & Command) =>
  postJson<{ client: { id: string }; contact: Contact }>('/api/clients/contact', contact);

export const addContact = (clientId: string, contact: NewContact & Command) =>
  postJson<{ contact: Contact }>(`/api/clients/contact/${encodeURIComponent(clientId)}`, contact);

export const saveContact = (contact: Contact & Command) =>
  postJson<{ contact: Contact }>(`/api/contacts/${encodeURIComponent(contact.id)}`, contact);

export const addChild = (clientId: string, child: Omit<Child, 'id'> & Command) =>
  postJson<{ child: Child }>(`/api/clients/child/${encodeURIComponent(clientId)}`, child);

export const saveChild = (child: Child & { clientId: string } & Command) =>
  postJson<{ child: Child }>('/api/clients/child', child);

export const setClientActive = (body: { id: string; active: boolean } & Command) =>
  postJson<{ client?: Client }>(`/api/clients/active/${encodeURIComponent(body.id)}`, body);

/** An admin's erasure of a family's personal data: what accounting keeps, until when. */
export const eraseClient = (clientId: string, body: { reason: string; confirm: true; commandId: string }) =>
  postJson<{
    client: { id: string; erased: true };
    kept: { moneyHistory: string; billingDetailsUntil: string | null };
  }>(`/api/clients/erase/${encodeURIComponent(clientId)}`, body);

/** The family's subject-access export (a zip of export.json and summary.pdf), downloaded by the browser. */
export const clientExportUrl = (clientId: string) => `/api/clients/${encodeURIComponent(clientId)}/export`;

/** A family's money, lessons and tutors, for its page (the office only: a tutor is refused). */
export const fetchFamilyOverview = (clientId: string, signal?: AbortSignal) =>
  getJson<FamilyOverviewAnswer>(`/api/clients/${encodeURIComponent(clientId)}/overview`, signal);

export type { FamilyAccessAnswer };

/** The family's contacts who can sign in, their access and live sessions, and its request for erasure (admins, auditors). */
export const fetchFamilyAccess = (clientId: string, signal?: AbortSignal) =>
  getJson<FamilyAccessAnswer>(`/api/clients/${encodeURIComponent(clientId)}/family-access`, signal);

export const setFamilyAccess = (contactId: string, body: { active: boolean } & Command) =>
  postJson<unknown>(`/api/clients/family-access/${encodeURIComponent(contactId)}`, body);

export const endFamilySessions = (contactId: string, body: Command) =>
  postJson<unknown>(`/api/clients/family-sessions/end/${encodeURIComponent(contactId)}`, body);

export const decideErasureRequest = (clientId: string, body: { approve: boolean } & Command) =>
  postJson<unknown>(`/api/clients/erasure-request/decide/${encodeURIComponent(clientId)}`, body);

export const decideEmailChange = (contactId: string, body: { approve: boolean } & Command) =>
  postJson<unknown>(`/api/clients/email-change/decide/${encodeURIComponent(contactId)}`, body);
