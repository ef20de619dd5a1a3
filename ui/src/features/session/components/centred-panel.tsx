import styled from '@emotion/styled';
import type { ReactNode } from 'react';

const Page = styled.main({
  minHeight: '100vh',
  display: 'flex',
  alignItems: 'center',
  justifyContent: 'center',
  padding: '1.5rem',
});

const Box = styled.div(({ theme }) => ({
  width: '100%',
  maxWidth: '26rem',
  background: theme.colors.surface,
  border: `1px solid ${theme.colors.border}`,
  borderRadius: theme.radius,
  padding: '2rem',
  boxShadow: '0 8px 24px rgba(16, 42, 67, 0.08)',
}));

const Brand = styled.p(({ theme }) => ({ margin: '0 0 0.5rem', fontWeight: 700, color: theme.colors.primary }));

const Title = styled.h1({ margin: '0 0 1.5rem', fontSize: '1.5rem' });

/** The open screens (login, reset, activation): logo and heading on a centred panel. */
export function CentredPanel({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Page>
      <Box>
        <Brand>Tutoring Agency</Brand>
        <Title>{title}</Title>
        {children}
      </Box>
    </Page>
  );
}
