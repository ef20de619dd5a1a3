import { describe, expect, it } from 'vitest';
import { cellLabels, clippedEdges } from './table-layout';

describe('a table on a phone: its cells labelled by their columns', () => {
  const headers = [
    { label: 'Date', span: 1 },
    { label: 'Student', span: 1 },
    { label: 'Amount', span: 1 },
    { label: 'Commission', span: 1 },
  ];

  it('labels each cell of a row with its column’s header', () => {
    expect(cellLabels(headers, [1, 1, 1, 1])).toEqual(['Date', 'Student', 'Amount', 'Commission']);
  });

  it('leaves a cell spanning columns unlabelled (a total’s "Total", a form opened under a row) and labels the cells after it by their own columns', () => {
    expect(cellLabels(headers, [2, 1, 1])).toEqual([null, 'Amount', 'Commission']);
    expect(cellLabels(headers, [4])).toEqual([null]);
  });

  it('labels cells under a header spanning columns with it, and leaves those under a blank header unlabelled', () => {
    expect(
      cellLabels(
        [
          { label: 'Name', span: 1 },
          { label: 'Phone', span: 2 },
          { label: '', span: 1 },
        ],
        [1, 1, 1, 1],
      ),
    ).toEqual(['Name', 'Phone', 'Phone', null]);
  });

  it('leaves cells past the last header unlabelled', () => {
    expect(cellLabels([{ label: 'Name', span: 1 }], [1, 1])).toEqual(['Name', null]);
  });
});

describe('a table wider than its box: the edges that hide columns', () => {
  it('none when the table fits', () => {
    expect(clippedEdges({ scrollLeft: 0, scrollWidth: 800, clientWidth: 800 })).toEqual({ left: false, right: false });
    // A pixel of rounding hides no column.
    expect(clippedEdges({ scrollLeft: 0, scrollWidth: 801, clientWidth: 800 })).toEqual({ left: false, right: false });
  });

  it('the right edge at the start, both in the middle, the left at the end', () => {
    expect(clippedEdges({ scrollLeft: 0, scrollWidth: 1200, clientWidth: 800 })).toEqual({ left: false, right: true });
    expect(clippedEdges({ scrollLeft: 200, scrollWidth: 1200, clientWidth: 800 })).toEqual({ left: true, right: true });
    expect(clippedEdges({ scrollLeft: 400, scrollWidth: 1200, clientWidth: 800 })).toEqual({
      left: true,
      right: false,
    });
  });
});
