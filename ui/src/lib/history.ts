import { type ActivityAnswer, type HistoryAnswer, type InvoiceTraceAnswer, LIMITS } from '@agency/contracts';
import dayjs from 'dayjs';
import { getJson } from './http';

export const fetchHistory = (streamId: string, signal?: AbortSignal) =>
  getJson<HistoryAnswer>(`/api/history/${encodeURIComponent(streamId)}`, signal);

export const fetchInvoiceTrace = (invoiceId: string, signal?: AbortSignal) =>
  getJson<InvoiceTraceAnswer>(`/api/invoices/trace/${encodeURIComponent(invoiceId)}`, signal);

export type ActivityPeriod = { from: string; to: string; userId: string };

/** The query string of the activity log: the period, and one user or everyone (''). */
export const activitySearch = (query: ActivityPeriod, format?: 'csv') => {
  const search = new URLSearchParams({ from: query.from, to: query.to });
  if (query.userId) search.set('userId', query.userId);
  if (format) search.set('format', format);
  return search;
};

/**
 * The period with `changed` ('from' or 'to') as chosen and the other end moved, where needed, so that
 * it ends on or after it starts and spans `LIMITS.maxActivityDays` days at most (the server's bound).
 */
export function activityPeriodWithin<P extends { from: string; to: string }>(
  period: P,
  changed: 'from' | 'to' = 'to',
): P {
  const span = LIMITS.maxActivityDays - 1;
  const from = dayjs(period.from);
  const to = dayjs(period.to);
  if (!from.isValid() || !to.isValid()) return period;
  if (changed === 'from' && (to.isBefore(from) || to.diff(from, 'day') > span)) {
    return { ...period, to: from.add(to.isBefore(from) ? 0 : span, 'day').format('YYYY-MM-DD') };
  }
  if (changed === 'to' && (to.isBefore(from) || to.diff(from, 'day') > span)) {
    return { ...period, from: to.subtract(to.isBefore(from) ? 0 : span, 'day').format('YYYY-MM-DD') };
  }
  return period;
}

/** One page of the activity log (`cursor`: the previous page's `nextCursor`; none: the first). */
export const fetchActivity = (query: ActivityPeriod & { cursor?: string }, signal?: AbortSignal) => {
  const search = activitySearch(query);
  if (query.cursor) search.set('cursor', query.cursor);
  return getJson<ActivityAnswer>(`/api/activity?${search}`, signal);
};
