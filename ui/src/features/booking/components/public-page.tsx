import styled from '@emotion/styled';
import type { ReactNode } from 'react';

const Main = styled.main({ maxWidth: '46rem', margin: '0 auto', padding: '2rem 1rem' });

const AgencyName = styled.p(({ theme }) => ({
  margin: 0,
  color: theme.colors.muted,
  fontWeight: 600,
  letterSpacing: '0.02em',
}));

/** The booking pages' frame: open to everyone, outside the signed-in shell, under the agency's name. */
export function PublicPage({ title, agency, children }: { title: string; agency?: string; children: ReactNode }) {
  return (
    <Main>
      {agency ? <AgencyName data-testid="agency-name">{agency}</AgencyName> : null}
      <h1>{title}</h1>
      {children}
    </Main>
  );
}
