import type { Theme } from '@emotion/react';
import styled from '@emotion/styled';
import { Link } from 'react-router-dom';

type Variant = 'primary' | 'secondary';
type StyleProps = { theme: Theme; variant?: Variant };

function buttonStyles({ theme, variant = 'primary' }: StyleProps) {
  const primary = variant === 'primary';
  return {
    display: 'inline-flex',
    alignItems: 'center',
    justifyContent: 'center',
    gap: '0.4em',
    minHeight: '2.5rem',
    padding: '0.5rem 1.1rem',
    borderRadius: theme.radius,
    border: `1px solid ${primary ? theme.colors.primary : theme.colors.border}`,
    background: primary ? theme.colors.primary : theme.colors.surface,
    color: primary ? theme.colors.primaryText : theme.colors.text,
    font: 'inherit',
    fontWeight: 600,
    textDecoration: 'none',
    cursor: 'pointer',
    '&:hover:not(:disabled)': { background: primary ? theme.colors.primaryHover : theme.colors.background },
    '&:disabled': { opacity: 0.6, cursor: 'not-allowed' },
  } as const;
}

const notVariant = (prop: string) => prop !== 'variant';

export const Button = styled('button', { shouldForwardProp: notVariant })<{ variant?: Variant }>(buttonStyles);

export const ButtonLink = styled(Link, { shouldForwardProp: notVariant })<{ variant?: Variant }>(buttonStyles);

export const ButtonRow = styled.div({
  display: 'flex',
  flexWrap: 'wrap',
  gap: '0.75rem',
  alignItems: 'center',
  marginTop: '1.5rem',
});
