/**
 * How a table is laid out on the screen it is on (components/table.tsx): as a table that shows
 * which edges hide columns, or, on a phone, as cards of label: value pairs. The decisions are
 * here, apart from the DOM, so they can be tested alone.
 */

/** Which edges of a table's scroll box hide columns (1 px of rounding is no column). */
export function clippedEdges(box: { scrollLeft: number; scrollWidth: number; clientWidth: number }) {
  return {
    left: box.scrollLeft > 1,
    right: box.scrollLeft + box.clientWidth < box.scrollWidth - 1,
  };
}

/** A header cell: its label and how many columns it spans. */
export type HeaderCell = { label: string; span: number };

/**
 * The label of each cell of a body or footer row, on a phone's card: the header of the column it
 * is in. A cell spanning several columns has none: it is a label itself (a total's "Total"), or a
 * part of the row on its own (an opened form, "No clients to show."). So has a column whose header
 * is blank.
 */
export function cellLabels(headers: readonly HeaderCell[], cellSpans: readonly number[]): (string | null)[] {
  const columns = headers.flatMap((header) => Array.from({ length: Math.max(1, header.span) }, () => header.label));
  let column = 0;
  return cellSpans.map((span) => {
    const label = span === 1 ? columns[column] || null : null;
    column += Math.max(1, span);
    return label;
  });
}
