import styled from '@emotion/styled';
import { useState } from 'react';
import { Button } from './button';

/**
 * Rows a long list draws at once. A month of every tutor's lessons runs to thousands of rows at
 * agency scale; drawing them all stalls the page for seconds, a hundred is quick and still reads
 * as one list. Paged rather than windowed: every drawn row is a real table row, so the browser's
 * find, screen readers and copying a page of rows work as in any table.
 */
export const PAGE_SIZE = 100;

export type Paging = { page: number; pageCount: number; size: number; total: number; onPage: (page: number) => void };

/**
 * The page of `rows` to draw, and the pager's state. The page is the component's own, so a list
 * drawn anew (another filter: its loader shows Loading… in between) starts on the first page, and
 * a quiet refresh (live updates) keeps the page shown, moved back if the list got shorter.
 */
export function usePage<T>(rows: readonly T[], size = PAGE_SIZE): { rows: readonly T[]; paging: Paging } {
  const [wanted, setPage] = useState(0);
  const pageCount = Math.max(1, Math.ceil(rows.length / size));
  const page = Math.min(wanted, pageCount - 1);
  return {
    rows: pageCount === 1 ? rows : rows.slice(page * size, (page + 1) * size),
    paging: { page, pageCount, size, total: rows.length, onPage: setPage },
  };
}

const Bar = styled.nav(({ theme }) => ({
  display: 'flex',
  flexWrap: 'wrap',
  alignItems: 'center',
  gap: '0.75rem',
  marginTop: '0.75rem',
  color: theme.colors.muted,
}));

const count = new Intl.NumberFormat('en-GB');

/** Previous / Next under a paged list, with which rows are shown; nothing when all fit on one page. */
export function Pager({ paging, label }: { paging: Paging; label: string }) {
  const { page, pageCount, size, total, onPage } = paging;
  if (pageCount <= 1) return null;
  const first = page * size + 1;
  const last = Math.min(total, (page + 1) * size);
  return (
    <Bar aria-label={`${label} pages`}>
      <Button type="button" variant="secondary" disabled={page === 0} onClick={() => onPage(page - 1)}>
        Previous
      </Button>
      <span aria-live="polite">
        Rows {count.format(first)}–{count.format(last)} of {count.format(total)} (page {page + 1} of {pageCount})
      </span>
      <Button type="button" variant="secondary" disabled={page === pageCount - 1} onClick={() => onPage(page + 1)}>
        Next
      </Button>
    </Bar>
  );
}
