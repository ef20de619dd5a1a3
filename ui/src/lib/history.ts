import type { HistoryAnswer, InvoiceTraceAnswer } from '@agency/contracts';
import { getJson } from './http';

export const fetchHistory = (streamId: string, signal?: AbortSignal) =>
  getJson<HistoryAnswer>(`/api/history/${encodeURIComponent(streamId)}`, signal);

export const fetchInvoiceTrace = (invoiceId: string, signal?: AbortSignal) =>
  getJson<InvoiceTraceAnswer>(`/api/invoices/trace/${encodeURIComponent(invoiceId)}`, signal);
