import styled from '@emotion/styled';
import type { ReactNode } from 'react';

const Box = styled.div(({ theme }) => ({
  color: theme.colors.danger,
  background: theme.colors.dangerBackground,
  border: `1px solid ${theme.colors.danger}`,
  borderRadius: theme.radius,
  padding: '0.75rem 1rem',
  margin: '1rem 0',
}));

/** A failure the user must see, announced to screen readers. */
export function ErrorAlert({ children }: { children: ReactNode }) {
  return <Box role="alert">{children}</Box>;
}
