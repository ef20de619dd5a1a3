import styled from '@emotion/styled';

export const FormPanel = styled.form(({ theme }) => ({
  background: theme.colors.surface,
  border: `1px solid ${theme.colors.border}`,
  borderRadius: theme.radius,
  padding: '1.5rem',
  maxWidth: '46rem',
}));

export const FieldRow = styled.div({
  display: 'grid',
  gridTemplateColumns: 'repeat(auto-fit, minmax(14rem, 1fr))',
  columnGap: '1.25rem',
});

/** A fieldset as wide as its form: not its default `min-width: min-content`, which let a grid of choices widen a phone's page. */
export const Fieldset = styled.fieldset({
  minWidth: 0,
  border: 'none',
  margin: '0 0 0.5rem',
  padding: 0,
  '& legend': { fontWeight: 700, padding: 0, marginBottom: '0.5rem', fontSize: '1.05rem' },
});
