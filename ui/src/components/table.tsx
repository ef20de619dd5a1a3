import styled from '@emotion/styled';
import { type ComponentPropsWithoutRef, useLayoutEffect, useRef, useState } from 'react';
import { formatMoney } from '../lib/format';
import { useNarrowScreen } from '../lib/use-narrow-screen';
import { cellLabels, clippedEdges } from './table-layout';

/** Positioned: the shades over a clipped edge, and the visually hidden texts, sit within it. */
const Frame = styled.div({ position: 'relative' });

/**
 * A table's own scroll box: a wide table scrolls inside it, never the page. Positioned, so the
 * visually hidden texts in it (absolutely positioned) are clipped with it rather than widen the page.
 */
const ScrollBox = styled.div(({ theme }) => ({
  position: 'relative',
  overflowX: 'auto',
  background: theme.colors.surface,
  border: `1px solid ${theme.colors.border}`,
  borderRadius: theme.radius,
}));

/** A shade over an edge that hides columns: the table goes on past it. */
const Shade = styled.div<{ edge: 'left' | 'right' }>(({ edge }) => ({
  position: 'absolute',
  top: 1,
  bottom: 1,
  [edge]: 1,
  width: '1.5rem',
  pointerEvents: 'none',
  background: `linear-gradient(to ${edge === 'left' ? 'right' : 'left'}, rgba(16, 42, 67, 0.22), rgba(16, 42, 67, 0))`,
}));

const Hint = styled.p(({ theme }) => ({
  margin: '0 0 0.35rem',
  textAlign: 'right',
  fontSize: '0.85rem',
  color: theme.colors.muted,
}));

/** The header row's labels, as the cards name each value: a header's `data-label`, else its text. */
function headersOf(table: HTMLTableElement) {
  const row = table.tHead?.rows[table.tHead.rows.length - 1];
  return Array.from(row?.cells ?? [], (cell) => ({
    label: (cell.dataset.label ?? cell.textContent ?? '').trim(),
    span: cell.colSpan,
  }));
}

/** Puts each body and footer cell's column label on it (`data-label`), which a card shows before its value. */
function labelCells(box: HTMLElement) {
  for (const table of box.querySelectorAll('table')) {
    const headers = headersOf(table);
    const rows = [...Array.from(table.tBodies).flatMap((body) => Array.from(body.rows)), ...(table.tFoot?.rows ?? [])];
    for (const row of rows) {
      const cells = Array.from(row.cells);
      const labels = cellLabels(
        headers,
        cells.map((cell) => cell.colSpan),
      );
      cells.forEach((cell, index) => {
        const label = labels[index];
        if (!label) cell.removeAttribute('data-label');
        else if (cell.dataset.label !== label) cell.dataset.label = label;
      });
    }
  }
}

/**
 * A table's box, for every list. Wide enough, it is the table; narrower than the table, the table
 * scrolls inside it (never the page) with a shade over each edge that hides columns and a hint
 * above it. On a phone each row is a card of label: value pairs instead (the global styles'
 * `table-cards`, labelled from the header row), so nothing scrolls sideways.
 */
export function TableWrap({ children, tabIndex, className, ...props }: ComponentPropsWithoutRef<'div'>) {
  const narrow = useNarrowScreen();
  const box = useRef<HTMLDivElement>(null);
  const [clipped, setClipped] = useState({ left: false, right: false });
  useLayoutEffect(() => {
    const element = box.current;
    if (!element) return;
    const measure = () =>
      setClipped((before) => {
        const now = clippedEdges(element);
        return now.left === before.left && now.right === before.right ? before : now;
      });
    // Rows come and go (pages, live updates, an opened form): their labels and the width follow.
    const changed = new MutationObserver(() => {
      if (narrow) labelCells(element);
      measure();
    });
    changed.observe(element, { childList: true, subtree: true, characterData: true });
    const resized = new ResizeObserver(measure);
    resized.observe(element);
    for (const table of element.querySelectorAll('table')) resized.observe(table);
    element.addEventListener('scroll', measure, { passive: true });
    if (narrow) labelCells(element);
    measure();
    return () => {
      changed.disconnect();
      resized.disconnect();
      element.removeEventListener('scroll', measure);
    };
  }, [narrow]);
  const hidden = clipped.left || clipped.right;
  return (
    <Frame>
      {hidden ? (
        <Hint className="table-scroll-hint">
          <span aria-hidden="true">{clipped.left ? '← ' : ''}</span>
          Scroll sideways for more columns
          <span aria-hidden="true">{clipped.right ? ' →' : ''}</span>
        </Hint>
      ) : null}
      <Frame>
        <ScrollBox
          ref={box}
          // A page's own styles for its table (`styled(TableWrap)`) come with the cards, not instead of them.
          className={[narrow ? 'table-cards' : '', className ?? ''].filter(Boolean).join(' ') || undefined}
          data-clipped={
            hidden ? [clipped.left && 'left', clipped.right && 'right'].filter(Boolean).join(' ') : undefined
          }
          // A box that scrolls is reached by the keyboard, so its arrow keys scroll it.
          tabIndex={tabIndex ?? (hidden ? 0 : undefined)}
          {...props}
        >
          {children}
        </ScrollBox>
        {clipped.left ? <Shade edge="left" aria-hidden="true" className="table-shade" /> : null}
        {clipped.right ? <Shade edge="right" aria-hidden="true" className="table-shade" /> : null}
      </Frame>
    </Frame>
  );
}

export const Table = styled.table({ width: '100%', borderCollapse: 'collapse' });

export const Th = styled.th(({ theme }) => ({
  textAlign: 'left',
  padding: '0.65rem 0.75rem',
  borderBottom: `2px solid ${theme.colors.border}`,
  color: theme.colors.muted,
  fontSize: '0.78rem',
  textTransform: 'uppercase',
  letterSpacing: '0.02em',
  whiteSpace: 'nowrap',
}));

/**
 * Body cells and rows are plain elements with fixed class names (their rules are in the app's
 * global styles, app/global-styles.tsx): a page of a long list draws hundreds of cells, and an
 * Emotion-styled cell computed and hashed its styles once per cell on every render
 * (most of the lists' blocking time on a slow phone). Layout props stay off the element
 * (`nowrap` is also a legacy HTML attribute of td).
 */
export function Td({
  numeric,
  nowrap,
  className,
  ...props
}: ComponentPropsWithoutRef<'td'> & { numeric?: boolean; nowrap?: boolean }) {
  const classes = `cell${numeric ? ' cell-numeric' : nowrap ? ' cell-nowrap' : ''}`;
  return <td className={className ? `${classes} ${className}` : classes} {...props} />;
}

export function Tr({ clickable, className, ...props }: ComponentPropsWithoutRef<'tr'> & { clickable?: boolean }) {
  const classes = clickable ? 'row row-clickable' : 'row';
  return <tr className={className ? `${classes} ${className}` : classes} {...props} />;
}

export const EmptyRow = styled.td(({ theme }) => ({
  padding: '1.5rem 1rem',
  color: theme.colors.muted,
  textAlign: 'center',
}));

/** A table's closing Total row. */
export const TotalRow = styled.tr({ fontWeight: 700, '& td': { borderBottom: 'none' } });

/**
 * A money table's footer: 'Total' across the first `labelColumns` columns, each total in its own
 * right-aligned cell (its test id names it), then `trailingColumns` empty columns.
 */
export function TotalsFooter({
  labelColumns,
  totals,
  trailingColumns = 0,
}: {
  labelColumns: number;
  totals: { testId: string; amount: number | undefined }[];
  trailingColumns?: number;
}) {
  return (
    <tfoot>
      <TotalRow>
        <Td colSpan={labelColumns}>Total</Td>
        {totals.map(({ testId, amount }) => (
          <Td numeric key={testId} data-testid={testId}>
            {formatMoney(amount)}
          </Td>
        ))}
        {trailingColumns > 0 ? <Td colSpan={trailingColumns} /> : null}
      </TotalRow>
    </tfoot>
  );
}
