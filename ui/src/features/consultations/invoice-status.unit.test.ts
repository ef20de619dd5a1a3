import { describe, expect, it } from 'vitest';
import { creditNoteParts, invoicingNote, owedNote, partsText } from './invoice-status';

describe("a consultation's invoicing workflow under way, as its row says it", () => {
  it('says nothing once done', () => {
    expect(invoicingNote({ cancelled: false, underWay: null })).toBeNull();
    expect(invoicingNote({ cancelled: true, underWay: null })).toBeNull();
  });

  it('"Issuing invoice…" until its invoice is issued', () => {
    expect(invoicingNote({ cancelled: false, underWay: 'issuing invoice' })).toBe('Issuing invoice…');
  });

  it('a cancelled one until its credit note is issued; a changed one until the previous invoice is credited', () => {
    expect(invoicingNote({ cancelled: true, underWay: 'issuing credit note' })).toBe('Cancelled — issuing credit note');
    expect(invoicingNote({ cancelled: false, underWay: 'issuing credit note' })).toBe(
      'Crediting the previous invoice…',
    );
  });
});

describe("the credit notes a consultation's invoice cell names", () => {
  const replaced = (reference: string, creditNoteReference: string | null) => ({
    invoiceId: `id-${reference}`,
    reference,
    creditNoteId: creditNoteReference && `id-${creditNoteReference}`,
    creditNoteReference,
  });

  it('names none beside an invoice that bills it now and is not credited', () => {
    expect(creditNoteParts({ creditNoteId: null, creditNoteReference: null, replaced: [] })).toEqual([]);
  });

  it('never names the replaced invoice’s credit note as the new invoice’s: "replaces OTA00007, credited by CN-OTA00008"', () => {
    const parts = creditNoteParts({
      creditNoteId: null,
      creditNoteReference: null,
      replaced: [replaced('OTA00007', 'CN-OTA00008')],
    });
    expect(partsText(parts)).toBe('replaces OTA00007, credited by CN-OTA00008');
    expect(partsText(parts)).not.toMatch(/^credited by/);
    // Each reference links to its own document.
    expect(parts.filter((part) => typeof part !== 'string')).toEqual([
      { id: 'id-OTA00007', reference: 'OTA00007' },
      { id: 'id-CN-OTA00008', reference: 'CN-OTA00008' },
    ]);
  });

  it('names its own credit note after a cancellation, then each replaced invoice with its own (or none yet)', () => {
    const parts = creditNoteParts({
      creditNoteId: 'id-CN-OTA00010',
      creditNoteReference: 'CN-OTA00010',
      replaced: [replaced('OTA00007', 'CN-OTA00008'), replaced('OTA00009', null)],
    });
    expect(partsText(parts)).toBe(
      'credited by CN-OTA00010; replaces OTA00007, credited by CN-OTA00008; replaces OTA00009',
    );
  });
});

describe('what a part-paid invoice shows beside the Paid tick', () => {
  it('what is still owed, to the penny', () => {
    expect(owedNote({ paid: 100, owed: 75 })).toBe('£75.00 owed');
    expect(owedNote({ paid: 40.01, owed: 1234.99 })).toBe('£1,234.99 owed');
  });

  it('nothing when unpaid (no tick), paid in full or credited', () => {
    expect(owedNote({ paid: 0, owed: 175 })).toBeNull();
    expect(owedNote({ paid: 175, owed: 0 })).toBeNull();
    expect(owedNote({ paid: 50, owed: 0 })).toBeNull();
  });
});
