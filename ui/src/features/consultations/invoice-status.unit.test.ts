import { describe, expect, it } from 'vitest';
import { invoicingNote } from './invoice-status';

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
