import { describe, expect, it } from 'vitest';
import { renderedSample } from './verify-documents';

describe("npm run verify's sample of documents rendered to bytes", () => {
  it('renders every document while there are no more than the limit', () => {
    expect(renderedSample(['a', 'b', 'a', 'a'], 4)).toEqual([true, true, true, true]);
  });

  it('renders at most the limit, spread over the whole log, and the first of each kind however rare', () => {
    const kinds = [...Array.from({ length: 9_999 }, () => 'InvoiceGenerated'), 'FamilyCreditNoteIssued'];
    const sample = renderedSample(kinds, 1000);
    const picked = sample.flatMap((chosen, index) => (chosen ? [index] : []));
    expect(picked).toHaveLength(1001);
    expect(picked.slice(0, 3)).toEqual([0, 10, 20]);
    expect(picked.at(-2)).toBe(9_990);
    expect(picked.at(-1)).toBe(9_999);
  });
});
