import styled from '@emotion/styled';

export const Panel = styled.section(({ theme }) => ({
  background: theme.colors.surface,
  border: `1px solid ${theme.colors.border}`,
  borderRadius: theme.radius,
  padding: '1.25rem 1.5rem',
  marginBottom: '1.5rem',
  '@media (max-width: 37.5em)': { padding: '1rem 0.85rem' },
}));

export const SectionHeading = styled.h2({ fontSize: '1.25rem', margin: '0 0 1rem' });
