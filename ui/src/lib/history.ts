import type { ActivityAnswer, HistoryAnswer, InvoiceTraceAnswer } from '@agency/contracts';
import { getJson } from './http';

export const fetchHistory = (streamId: string, signal?: AbortSignal) =>
  getJson<HistoryAnswer>(`/api/history/${encodeURIComponent(streamId)}`, signal);

export const fetchInvoiceTrace = (invoiceId: string, signal?: AbortSignal) =>
  getJson<InvoiceTraceAnswer>(`/api/invoices/trace/${encodeURIComponent(invoiceId)}`, signal);

/** The query string of the activity log: the period, and one user or everyone (''). */
export const activitySearch = (query: { from: string; to: string; userId: string }, format?: 'csv') => {
  const search = new URLSearchParams({ from: query.from, to: query.to });
  if (query.userId) search.set('userId', query.userId);
  if (format) search.set('format', format);
  return search;
};

export const fetchActivity = (query: { from: string; to: string; userId: string }, signal?: AbortSignal) =>
  getJson<ActivityAnswer>(`/api/activity?${activitySearch(query)}`, signal);
