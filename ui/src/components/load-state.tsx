import styled from '@emotion/styled';
import type { ReactNode } from 'react';
import type { LoaderState } from '../lib/loader';
import { Button } from './button';

const Loading = styled.p(({ theme }) => ({ color: theme.colors.muted }));

const Failure = styled.div(({ theme }) => ({
  display: 'flex',
  flexWrap: 'wrap',
  alignItems: 'center',
  gap: '1rem',
  color: theme.colors.danger,
  background: theme.colors.dangerBackground,
  border: `1px solid ${theme.colors.danger}`,
  borderRadius: theme.radius,
  padding: '0.75rem 1rem',
}));

/** Shows Loading…, a failure with its message and Retry, or the loaded content. */
export function LoadState<R>({
  state,
  onRetry,
  children,
}: {
  state: LoaderState<R>;
  onRetry: () => void;
  children: (data: R) => ReactNode;
}) {
  if (state.status === 'loading') return <Loading role="status">Loading…</Loading>;
  if (state.status === 'failed')
    return (
      <Failure role="alert">
        <span>{state.error.message}</span>
        <Button type="button" variant="secondary" onClick={onRetry}>
          Retry
        </Button>
      </Failure>
    );
  return <>{children(state.data)}</>;
}
