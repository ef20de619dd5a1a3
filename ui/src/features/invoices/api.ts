import { getJson, postJson } from '../../lib/http';

export type InvoiceRow = {
  id: string;
  tutorId: string;
  month: string;
  locked: boolean;
  period: string;
  date: string;
  tutorName: string;
  earnings: number;
  commission: number;
  /** Absent from a tutor's answer (contracts/visibility.ts). */
  partnerCommission?: number;
  reference: string;
  paid: number;
  confirmed: boolean;
};

export type InvoiceTotals = { earnings: number; commission: number; partnerCommission?: number };

export type InvoicesList = { invoices: InvoiceRow[]; totals: InvoiceTotals };

export type InvoicesQuery = { year: number; month: number; tutorId?: string };

export type InvoiceItem = { earnings: number; commissionRate: number; commission: number; description: string };

/** The answer to save, confirm and payment: the invoice with its items. */
export type Invoice = {
  id: string;
  tutorId: string;
  month: string;
  reference: string;
  date: string;
  earnings: number;
  commission: number;
  items: InvoiceItem[];
  totalCommission: number;
  paid: number;
  confirmed: boolean;
  locked: boolean;
};

export type TutorOption = { id: string; name: string };

type Command = { commandId: string };

export function fetchInvoices(query: InvoicesQuery, signal?: AbortSignal) {
  const search = new URLSearchParams({ year: String(query.year), month: String(query.month) });
  if (query.tutorId) search.set('tutorId', query.tutorId);
  return getJson<InvoicesList>(`/api/invoices/?${search}`, signal);
}

/** Every tutor, past ones too: their old invoices stay reachable. */
export const fetchTutorOptions = (signal?: AbortSignal) =>
  getJson<{ tutors: TutorOption[] }>('/api/tutors?includeInactive=Y', signal).then((answer) => answer.tutors);

/** Generates the month's invoice, or answers the one already generated. */
export const saveInvoice = (body: { tutorId: string; year: number; month: number } & Command) =>
  postJson<{ invoice: Invoice }>('/api/invoices/save', body).then((answer) => answer.invoice);

export const confirmInvoice = (body: { id: string } & Command) =>
  postJson<{ invoice: Invoice }>('/api/invoices/confirm', body).then((answer) => answer.invoice);

export const recordPayment = (body: { invoiceId: string; date: string; amount: string } & Command) =>
  postJson<{ invoice: Invoice }>('/api/invoices/payment', body).then((answer) => answer.invoice);

/** Where the PDF document is served; the session cookie opens it in a new tab. */
export const invoiceDocumentUrl = (id: string) => `/api/invoices/doc/${encodeURIComponent(id)}`;
