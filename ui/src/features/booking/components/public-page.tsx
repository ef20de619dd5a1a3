import styled from '@emotion/styled';
import type { ReactNode } from 'react';

const Main = styled.main({ maxWidth: '46rem', margin: '0 auto', padding: '2rem 1rem' });

/** The booking pages' frame: open to everyone, outside the signed-in shell. */
export function PublicPage({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Main>
      <h1>{title}</h1>
      {children}
    </Main>
  );
}
