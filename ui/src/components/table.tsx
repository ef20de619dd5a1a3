import styled from '@emotion/styled';
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

// Layout props stay off the element (`nowrap` is also a legacy HTML attribute of td).
export const Td = styled('td', { shouldForwardProp: (prop) => prop !== 'numeric' && prop !== 'nowrap' })<{
  numeric?: boolean;
  nowrap?: boolean;
}>(({ theme, numeric, nowrap }) => ({
  padding: '0.65rem 0.75rem',
  borderBottom: `1px solid ${theme.colors.border}`,
  verticalAlign: 'middle',
  textAlign: numeric ? 'right' : 'left',
  fontVariantNumeric: numeric ? 'tabular-nums' : undefined,
  // Money and dates never break across lines; names may.
  whiteSpace: numeric || nowrap ? 'nowrap' : undefined,
}));

export const Tr = styled.tr<{ clickable?: boolean }>(({ theme, clickable }) => ({
  cursor: clickable ? 'pointer' : undefined,
  '&:hover': { background: theme.colors.rowHover },
  '&:last-of-type td': { borderBottom: 'none' },
}));

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
