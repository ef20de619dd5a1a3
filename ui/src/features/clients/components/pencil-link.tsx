import styled from '@emotion/styled';
import { Link } from 'react-router-dom';

const Pencil = styled(Link)(({ theme }) => ({
  display: 'inline-flex',
  alignItems: 'center',
  justifyContent: 'center',
  width: '2.25rem',
  height: '2.25rem',
  borderRadius: theme.radius,
  color: theme.colors.primary,
  '&:hover': { background: theme.colors.rowHover },
}));

/** An edit link shown as a pencil; `label` is its accessible name. */
export function PencilLink({ to, label }: { to: string; label: string }) {
  return (
    <Pencil to={to} aria-label={label} title={label}>
      <svg width="18" height="18" viewBox="0 0 24 24" aria-hidden="true" focusable="false">
        <path
          d="M3 17.25V21h3.75L17.81 9.94l-3.75-3.75L3 17.25zm17.71-10.21a1 1 0 0 0 0-1.41l-2.34-2.34a1 1 0 0 0-1.41 0l-1.83 1.83 3.75 3.75 1.83-1.83z"
          fill="currentColor"
        />
      </svg>
    </Pencil>
  );
}
