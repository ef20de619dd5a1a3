import styled from '@emotion/styled';
import type { ComponentPropsWithoutRef } from 'react';
import { formatMoney } from '../lib/format';

/**
 * A table's own scroll box: a wide table scrolls inside it, never the page. Positioned, so the
 * visually hidden texts in it (absolutely positioned) are clipped with it rather than widen the page.
 */
export const TableWrap = styled.div(({ theme }) => ({
  position: 'relative',
  overflowX: 'auto',
  background: theme.colors.surface,
  border: `1px solid ${theme.colors.border}`,
  borderRadius: theme.radius,
}));

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
