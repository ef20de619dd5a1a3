import type {
  ClientChildrenAnswer,
  ClientListAnswer,
  ClientListItem,
  ConsultationListAnswer,
  ConsultationRowView,
  StudentView,
  TutorListAnswer,
  TutorListItem,
} from '@agency/contracts';
import { everyPage } from '../../lib/every-page';
import { getJson, postJson } from '../../lib/http';

export type ConsultationRow = ConsultationRowView;
export type ClientOption = Pick<ClientListItem, 'id' | 'name'>;
export type ChildOption = StudentView;
export type TutorOption = Pick<TutorListItem, 'id' | 'name'>;

/** What the form sends: client and child are ids; a blank amount is the agency's default (175). */
export type ConsultationInput = {
  client: string;
  child: string;
  date: string;
  amount: string;
  assessment: boolean;
  assessmentDetails?: { subjects: string[]; tutorId: string };
  commandId: string;
};

/** The saved consultation: a save without its id is a failure (spec §4). */
export type SavedConsultation = { id?: string; invoiceReference: string | null };

export const fetchConsultations = (signal?: AbortSignal) =>
  getJson<ConsultationListAnswer>('/api/consultations', signal).then((answer) => answer.consultations);

/** Every active family for the typeahead, not the list's first page: its pages are walked to the end. */
export const fetchClientOptions = (signal?: AbortSignal): Promise<ClientOption[]> =>
  everyPage(async (cursor) => {
    const params = new URLSearchParams({ includeInactive: 'N', limit: '1000' });
    if (cursor) params.set('cursor', cursor);
    const page = await getJson<ClientListAnswer>(`/api/clients?${params}`, signal);
    return { rows: page.clients, nextCursor: page.nextCursor };
  });

/** Choosing a client loads that client's children. */
export const fetchChildren = (clientId: string, signal?: AbortSignal) =>
  clientId
    ? getJson<ClientChildrenAnswer>(`/api/clients/${encodeURIComponent(clientId)}/children`, signal).then(
        (answer) => answer.children,
      )
    : Promise.resolve([]);

export const fetchTutorOptions = (signal?: AbortSignal) =>
  getJson<TutorListAnswer>('/api/tutors?includeInactive=N', signal).then((answer): TutorOption[] => answer.tutors);

export const saveConsultation = (body: ConsultationInput) =>
  postJson<{ consultation?: SavedConsultation }>('/api/consultations', body).then((answer) => answer.consultation);

/** Where an invoice's (or credit note's) PDF is served; the session cookie opens it in a new tab. */
export const familyDocumentUrl = (id: string) => `/api/family-invoices/doc/${encodeURIComponent(id)}`;

/** Money a family paid against a consultation's invoice (part payments too; never more than is owed). */
export const recordFamilyPayment = (body: { invoiceId: string; date: string; amount: string; commandId: string }) =>
  postJson('/api/family-invoices/payment', body);

/** Cancels a consultation; an invoice already issued for it is credited by a credit note. */
export const cancelConsultation = (id: string, commandId: string) =>
  postJson('/api/consultations/cancel', { id, commandId });
