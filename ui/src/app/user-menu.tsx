import styled from '@emotion/styled';
import { useEffect, useRef, useState } from 'react';
import { Link, useLocation } from 'react-router-dom';

const Wrap = styled.div({ position: 'relative', minWidth: 0 });

const Toggle = styled.button(({ theme }) => ({
  display: 'inline-flex',
  alignItems: 'center',
  gap: '0.35rem',
  maxWidth: '12rem',
  '@media (max-width: 37.5em)': { maxWidth: '8rem' },
  font: 'inherit',
  color: theme.colors.muted,
  background: 'none',
  border: `1px solid transparent`,
  borderRadius: theme.radius,
  padding: '0.35rem 0.5rem',
  cursor: 'pointer',
  '&:hover': { borderColor: theme.colors.border },
  '& > span:first-of-type': { overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' },
}));

const Dropdown = styled.ul(({ theme }) => ({
  position: 'absolute',
  right: 0,
  top: 'calc(100% + 0.35rem)',
  zIndex: 40,
  minWidth: '10rem',
  listStyle: 'none',
  margin: 0,
  padding: '0.35rem 0',
  background: theme.colors.surface,
  border: `1px solid ${theme.colors.border}`,
  borderRadius: theme.radius,
  boxShadow: '0 8px 24px rgba(16, 42, 67, 0.15)',
  '& a': { display: 'block', padding: '0.5rem 1rem', color: theme.colors.text, textDecoration: 'none' },
  '& a:hover, & a:focus-visible': { background: theme.colors.border },
}));

/**
 * The header's dashboard dropdown (spec §2): the user's name opens Dashboard and Logout. It
 * closes on a choice, on Escape (focus back on the toggle) and on a click elsewhere.
 */
export function UserMenu({ name, onLogout }: { name: string; onLogout: () => void }) {
  const [open, setOpen] = useState(false);
  const wrap = useRef<HTMLDivElement>(null);
  const toggle = useRef<HTMLButtonElement>(null);
  const { pathname } = useLocation();

  // A navigation closes the menu.
  useEffect(() => setOpen(false), [pathname]);

  useEffect(() => {
    if (!open) return;
    const outside = (event: MouseEvent) => {
      if (!wrap.current?.contains(event.target as Node)) setOpen(false);
    };
    const onEscape = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      setOpen(false);
      toggle.current?.focus();
    };
    document.addEventListener('mousedown', outside);
    document.addEventListener('keydown', onEscape);
    return () => {
      document.removeEventListener('mousedown', outside);
      document.removeEventListener('keydown', onEscape);
    };
  }, [open]);

  return (
    <Wrap ref={wrap}>
      <Toggle
        ref={toggle}
        type="button"
        aria-expanded={open}
        aria-controls="user-menu"
        aria-label={`${name} (account)`}
        onClick={() => setOpen((shown) => !shown)}
      >
        <span>{name}</span>
        <span aria-hidden="true">▾</span>
      </Toggle>
      {open ? (
        <Dropdown id="user-menu">
          <li>
            <Link to="/dashboard">Dashboard</Link>
          </li>
          <li>
            <a
              href="/login"
              onClick={(event) => {
                event.preventDefault();
                onLogout();
              }}
            >
              Logout
            </a>
          </li>
        </Dropdown>
      ) : null}
    </Wrap>
  );
}
