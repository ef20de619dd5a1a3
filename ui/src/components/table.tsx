import styled from '@emotion/styled';

export const TableWrap = styled.div(({ theme }) => ({
  overflowX: 'auto',
  background: theme.colors.surface,
  border: `1px solid ${theme.colors.border}`,
  borderRadius: theme.radius,
}));

export const Table = styled.table({ width: '100%', borderCollapse: 'collapse' });

export const Th = styled.th(({ theme }) => ({
  textAlign: 'left',
  padding: '0.75rem 1rem',
  borderBottom: `2px solid ${theme.colors.border}`,
  color: theme.colors.muted,
  fontSize: '0.85rem',
  textTransform: 'uppercase',
  letterSpacing: '0.03em',
  whiteSpace: 'nowrap',
}));

export const Td = styled.td<{ numeric?: boolean }>(({ theme, numeric }) => ({
  padding: '0.75rem 1rem',
  borderBottom: `1px solid ${theme.colors.border}`,
  verticalAlign: 'middle',
  textAlign: numeric ? 'right' : 'left',
  fontVariantNumeric: numeric ? 'tabular-nums' : undefined,
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
