import styled from '@emotion/styled';
import { type ReactNode, useEffect } from 'react';

const Bar = styled.div({
  display: 'flex',
  flexWrap: 'wrap',
  alignItems: 'center',
  justifyContent: 'space-between',
  gap: '1rem',
  marginBottom: '1.5rem',
});

const Title = styled.h1({ margin: 0, fontSize: '1.75rem' });

/** The page's h1; it also names the browser tab. */
export function PageHeading({ title, children }: { title: string; children?: ReactNode }) {
  useEffect(() => {
    document.title = `${title} · Tutoring Agency`;
  }, [title]);
  return (
    <Bar>
      <Title>{title}</Title>
      {children}
    </Bar>
  );
}
