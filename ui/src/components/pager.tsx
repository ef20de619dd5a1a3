import styled from '@emotion/styled';
import { useState } from 'react';
import { formatCount } from '../lib/numbers';
import { Button } from './button';

/**
 * Rows a long list asks for and draws at once. A month of every tutor's lessons runs to
 * thousands of rows at agency scale; drawing them all stalls the page for seconds, a hundred is
 * quick and still reads as one list. Paged rather than windowed: every drawn row is a real table
 * row, so the browser's find, screen readers and copying a page of rows work as in any table.
 */
export const PAGE_SIZE = 100;

/** What a paged query answers besides its rows (GET /api/lessons, GET /api/clients). */
export type PagedAnswer = { total: number; nextCursor: string | null };

export type Paging = {
  page: number;
  total: number;
  /** Rows on this page. */
  shown: number;
  onPrevious?: () => void;
  onNext?: () => void;
};

/**
 * The page of a server-paged list to ask for: `cursor` (undefined for the first page), and the
 * pager for the answer. The pages walked through are remembered (Previous goes back one); other
 * filters (`filters`, compared by value) start again on the first page. A quiet refresh of the
 * same page (live updates) keeps it.
 */
export function useCursorPages(filters: unknown) {
  const key = JSON.stringify(filters);
  const [walked, setWalked] = useState<{ key: string; cursors: (string | undefined)[] }>({
    key,
    cursors: [undefined],
  });
  const cursors = walked.key === key ? walked.cursors : [undefined];
  const page = cursors.length - 1;
  return {
    cursor: cursors[page],
    paging: ({ total, nextCursor }: PagedAnswer, shown: number): Paging => ({
      page,
      total,
      shown,
      onPrevious: page > 0 ? () => setWalked({ key, cursors: cursors.slice(0, -1) }) : undefined,
      onNext: nextCursor ? () => setWalked({ key, cursors: [...cursors, nextCursor] }) : undefined,
    }),
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

/** Previous / Next under a paged list, with which rows are shown; nothing when all fit on one page. */
export function Pager({ paging, label }: { paging: Paging; label: string }) {
  const { page, total, shown, onPrevious, onNext } = paging;
  if (!onPrevious && !onNext) return null;
  const first = page * PAGE_SIZE + 1;
  return (
    <Bar aria-label={`${label} pages`}>
      <Button type="button" variant="secondary" disabled={!onPrevious} onClick={onPrevious}>
        Previous
      </Button>
      <span aria-live="polite">
        Rows {formatCount(first)}–{formatCount(first + shown - 1)} of {formatCount(total)} (page {page + 1} of{' '}
        {Math.max(1, Math.ceil(total / PAGE_SIZE))})
      </span>
      <Button type="button" variant="secondary" disabled={!onNext} onClick={onNext}>
        Next
      </Button>
    </Bar>
  );
}
