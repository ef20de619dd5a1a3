import type {
  ClientChildrenAnswer,
  ClientListItem,
  ConsultationListAnswer,
  ConsultationRowView,
  StudentView,
  TutorListAnswer,
  TutorListItem,
} from '@agency/contracts';
import { familyDocumentUrl, fetchFamilyOptions } from '../../lib/family-invoices';
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

/** The columns the consultations list sorts by (GET /api/consultations `sort`); newest first otherwise. */
export const CONSULTATION_SORTS = ['date', 'name', 'child', 'amount'] as const;
export type ConsultationSort = (typeof CONSULTATION_SORTS)[number];

export type ConsultationsQuery = {
  year?: string;
  month?: string;
  q?: string;
  sort?: ConsultationSort;
  order?: 'asc' | 'desc';
};

export function fetchConsultations(query: ConsultationsQuery, signal?: AbortSignal) {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value) params.set(name, value);
  return getJson<ConsultationListAnswer>(`/api/consultations?${params}`, signal).then((answer) => answer.consultations);
}

/** Every active family for the typeahead, not the list's first page. */
export const fetchClientOptions = (signal?: AbortSignal): Promise<ClientOption[]> => fetchFamilyOptions(false, signal);

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

export { familyDocumentUrl };

/** Money a family paid against a consultation's invoice (part payments too; never more than is owed). */
export const recordFamilyPayment = (body: { invoiceId: string; date: string; amount: string; commandId: string }) =>
  postJson('/api/family-invoices/payment', body);

/** Cancels a consultation; an invoice already issued for it is credited by a credit note. */
export const cancelConsultation = (id: string, commandId: string) =>
  postJson('/api/consultations/cancel', { id, commandId });
