import type {
  InvoiceAnswer,
  InvoiceItemView,
  InvoiceListAnswer,
  InvoicePreviewAnswer,
  InvoiceRowView,
  TutorListAnswer,
  TutorListItem,
} from '@agency/contracts';
import { withAsOf } from '../../lib/as-of';
import { getJson, postJson } from '../../lib/http';

export type InvoiceRow = InvoiceRowView;

export type InvoiceTotals = InvoiceListAnswer['totals'];

export type InvoicesList = InvoiceListAnswer;

export type InvoicesQuery = { year: number; month: number; tutorId?: string };

export type InvoiceItem = InvoiceItemView;

export type TutorOption = Pick<TutorListItem, 'id' | 'name'>;

type Command = { commandId: string };

export function fetchInvoices(query: InvoicesQuery & { asOf?: string }, signal?: AbortSignal) {
  const search = new URLSearchParams({ year: String(query.year), month: String(query.month) });
  if (query.tutorId) search.set('tutorId', query.tutorId);
  return getJson<InvoicesList>(`/api/invoices/?${withAsOf(search, query.asOf)}`, signal);
}

/** Every tutor, past ones too: their old invoices stay reachable. */
export const fetchTutorOptions = (signal?: AbortSignal) =>
  getJson<TutorListAnswer>('/api/tutors?includeInactive=Y', signal).then((answer): TutorOption[] => answer.tutors);

export type InvoicePreview = InvoicePreviewAnswer;

/** What the month's invoice holds (or would hold): nothing is written. */
export function fetchInvoicePreview(query: Required<InvoicesQuery>, signal?: AbortSignal) {
  const search = new URLSearchParams({ year: String(query.year), month: String(query.month), tutorId: query.tutorId });
  return getJson<InvoicePreview>(`/api/invoices/preview?${search}`, signal);
}

/** Takes back an unconfirmed invoice: its reference is void and the month's lessons open again. */
export const withdrawInvoice = (body: { id: string } & Command) => postJson('/api/invoices/withdraw', body);

/**
 * Generates the month's invoice, or answers the one already generated (as GET /api/invoices/:id
 * shows it). `early`: the current month, once the user confirmed that it locks the rest of it.
 */
export const saveInvoice = (body: { tutorId: string; year: number; month: number; early?: boolean } & Command) =>
  postJson<InvoiceAnswer>('/api/invoices/save', body).then((answer) => answer.invoice);

export const confirmInvoice = (body: { id: string } & Command) =>
  postJson<InvoiceAnswer>('/api/invoices/confirm', body).then((answer) => answer.invoice);

export const recordPayment = (body: { invoiceId: string; date: string; amount: string } & Command) =>
  postJson<InvoiceAnswer>('/api/invoices/payment', body).then((answer) => answer.invoice);

/** Where the PDF document is served; the session cookie opens it in a new tab. */
export const invoiceDocumentUrl = (id: string) => `/api/invoices/doc/${encodeURIComponent(id)}`;
