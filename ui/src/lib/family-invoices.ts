import type { ClientListAnswer, ClientListItem, FamilyInvoiceState } from '@agency/contracts';
import { everyPage } from './every-page';
import { getJson } from './http';

/** Where a family invoice's (or credit note's) PDF is served; the session cookie opens it in a new tab. */
export const familyDocumentUrl = (id: string) => `/api/family-invoices/doc/${encodeURIComponent(id)}`;

/** A family's state as the screens say it. */
export const FAMILY_INVOICE_STATE_LABELS: Record<FamilyInvoiceState, string> = {
  unpaid: 'Unpaid',
  'part-paid': 'Part-paid',
  paid: 'Paid',
  credited: 'Credited',
};

export type FamilyOption = Pick<ClientListItem, 'id' | 'name'>;

/**
 * Every family for a typeahead (the active ones, or all with `includeInactive`), not the list's
 * first page: its pages are walked to the end.
 */
export const fetchFamilyOptions = (includeInactive: boolean, signal?: AbortSignal): Promise<FamilyOption[]> =>
  everyPage(async (cursor) => {
    const params = new URLSearchParams({ includeInactive: includeInactive ? 'Y' : 'N', limit: '1000' });
    if (cursor) params.set('cursor', cursor);
    const page = await getJson<ClientListAnswer>(`/api/clients?${params}`, signal);
    return { rows: page.clients, nextCursor: page.nextCursor };
  });
