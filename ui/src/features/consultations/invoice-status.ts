import type { ConsultationRowView } from '@agency/contracts';
import { formatMoney } from '../../lib/format';

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

/** A family document the invoice cell links to (its PDF). */
export type DocumentRef = { id: string; reference: string };
/** The invoice cell after the reference: words, and documents (shown as links to their PDFs). */
export type CellPart = string | DocumentRef;

type CreditNotesOf = Pick<ConsultationRowView, 'creditNoteId' | 'creditNoteReference' | 'replaced'>;

const documentOf = (id: string | null, reference: string | null): DocumentRef | null =>
  id && reference ? { id, reference } : null;

/**
 * What the invoice cell says of credit notes: the invoice that bills the consultation now is
 * "credited by" its own credit note only (after a cancellation); each invoice a change replaced
 * follows with its own ("replaces OTA00007, credited by CN-OTA00008"). A credit note is never
 * named beside an invoice it does not cancel.
 */
export function creditNoteParts(row: CreditNotesOf): CellPart[] {
  const parts: CellPart[] = [];
  const own = documentOf(row.creditNoteId, row.creditNoteReference);
  if (own) parts.push('credited by ', own);
  for (const replaced of row.replaced) {
    const credit = documentOf(replaced.creditNoteId, replaced.creditNoteReference);
    parts.push(parts.length > 0 ? '; replaces ' : 'replaces ', {
      id: replaced.invoiceId,
      reference: replaced.reference,
    });
    if (credit) parts.push(', credited by ', credit);
  }
  return parts;
}

/** The parts as plain words (a document by its reference). */
export const partsText = (parts: readonly CellPart[]) =>
  parts.map((part) => (typeof part === 'string' ? part : part.reference)).join('');

/** Beside the Paid tick of a part-paid invoice, what is still owed ("£75.00 owed"); null otherwise. */
export const owedNote = (row: Pick<ConsultationRowView, 'paid' | 'owed'>) =>
  row.paid > 0 && row.owed > 0 ? `£${formatMoney(row.owed)} owed` : null;
