import type { ConsultationRowView } from '@agency/contracts';

/**
 * What a row says of its invoicing workflow while it runs (null once done): in place of the
 * reference until the invoice is issued; after the reference until the invoice that no longer
 * bills it (cancelled, or changed after issue) is credited.
 */
export function invoicingNote(row: Pick<ConsultationRowView, 'cancelled' | 'underWay'>) {
  if (row.underWay === 'issuing invoice') return 'Issuing invoice…';
  if (row.underWay === 'issuing credit note') {
    return row.cancelled ? 'Cancelled — issuing credit note' : 'Crediting the previous invoice…';
  }
  return null;
}
