import type {
  FamilyInvoiceState,
  FamilyLedgerAnswer,
  LessonBillingAnswer,
  LessonCreditAnswer,
  LessonInvoiceAnswer,
} from '@agency/contracts';
import { PAGE_SIZE } from '../../components/pager';
import { getJson, postJson } from '../../lib/http';

export type { FamilyLedgerAnswer, FamilyLedgerEntry } from '@agency/contracts';

/** The ledger's filters as the address keeps them (`?client&state&year&month`): blank is "all". */
export type LedgerFilters = { client: string; state: FamilyInvoiceState | ''; year: string; month: string };

const STATES: readonly string[] = ['unpaid', 'part-paid', 'paid', 'credited'];

/** The filters named in the address; anything it cannot be is "all" (a month only with its year). */
export function filtersFromSearch(params: URLSearchParams): LedgerFilters {
  const state = params.get('state') ?? '';
  const year = /^\d{4}$/.test(params.get('year') ?? '') ? (params.get('year') ?? '') : '';
  const month = Number(params.get('month'));
  return {
    client: params.get('client') ?? '',
    state: STATES.includes(state) ? (state as FamilyInvoiceState) : '',
    year,
    month: year && Number.isInteger(month) && month >= 1 && month <= 12 ? String(month) : '',
  };
}

/** The query string of the filters (blank ones left out), and of a page or of the CSV. */
export function ledgerSearch(filters: LedgerFilters, extra: Record<string, string | undefined> = {}) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries({ ...filters, ...extra })) if (value) params.set(key, value);
  return params;
}

/** One page of the ledger (`cursor`: the previous page's `nextCursor`), with the filtered entries' count and totals. */
export const fetchLedger = ({ cursor, ...filters }: LedgerFilters & { cursor?: string }, signal?: AbortSignal) =>
  getJson<FamilyLedgerAnswer>(
    `/api/family-invoices?${ledgerSearch(filters, { limit: String(PAGE_SIZE), cursor })}`,
    signal,
  );

/** Every filtered entry as CSV, downloaded by the browser. */
export const ledgerCsvUrl = (filters: LedgerFilters) =>
  `/api/family-invoices?${ledgerSearch(filters, { format: 'csv' })}`;

export type { LessonInvoiceAnswer } from '@agency/contracts';

/** Bill every family for a month's lessons (admins; docs/money-models.md, "Family lesson invoices"). */
export const billLessons = (body: { month: string; commandId: string }) =>
  postJson<LessonBillingAnswer>('/api/family-invoices/lesson-billing', body);

/** A lessons invoice's lines: each lesson, its VAT, and the adjustments of lessons changed after they were billed. */
export const fetchLessonLines = (id: string, signal?: AbortSignal) =>
  getJson<LessonInvoiceAnswer>(`/api/family-invoices/lines/${encodeURIComponent(id)}`, signal);

/** The family asks for what it is owed back now: its latest lessons invoice credited and that month billed again. */
export const creditLessons = (body: { clientId: string; commandId: string }) =>
  postJson<LessonCreditAnswer>('/api/family-invoices/lesson-credit', body);
