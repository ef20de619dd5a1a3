import styled from '@emotion/styled';
import { type ReactNode, useEffect } from 'react';
import { NavLink, useNavigate } from 'react-router-dom';
import { Button } from '../../../components/button';
import { HttpError } from '../../../lib/http';
import { keepAlive, signOut } from '../api';

const Main = styled.main({ maxWidth: '46rem', margin: '0 auto', padding: '1rem' });

const Nav = styled.nav(({ theme }) => ({
  display: 'flex',
  flexWrap: 'wrap',
  gap: '0.25rem 1rem',
  alignItems: 'center',
  padding: '0.5rem 0 0.75rem',
  borderBottom: `1px solid ${theme.colors.border}`,
  marginBottom: '1rem',
  a: {
    color: theme.colors.primary,
    padding: '0.5rem 0',
    minHeight: '44px',
    display: 'inline-flex',
    alignItems: 'center',
  },
  'a.active': { fontWeight: 700, textDecoration: 'none' },
}));

const PAGES = [
  { to: '/family/home', label: 'Home' },
  { to: '/family/lessons', label: 'Lessons' },
  { to: '/family/invoices', label: 'Invoices' },
  { to: '/family/bookings', label: 'Bookings' },
  { to: '/family/my-data', label: 'My Data' },
];

/**
 * The family's pages' frame, phone first: its own short navigation (staff navigation is for
 * staff), Sign Out, and each page's opening counted as activity for the session's idle time-out.
 * A session that is over sends the family back to the sign-in page.
 */
export function FamilyFrame({ title, children }: { title: string; children: ReactNode }) {
  const navigate = useNavigate();
  useEffect(() => {
    keepAlive().catch((error: unknown) => {
      if (error instanceof HttpError && error.status === 401) navigate('/family', { replace: true });
    });
  }, [navigate]);
  const leave = async () => {
    await signOut().catch(() => undefined);
    navigate('/family', { replace: true });
  };
  return (
    <Main>
      <Nav aria-label="Family pages">
        {PAGES.map((page) => (
          <NavLink key={page.to} to={page.to}>
            {page.label}
          </NavLink>
        ))}
        <Button type="button" variant="secondary" onClick={leave}>
          Sign Out
        </Button>
      </Nav>
      <h1>{title}</h1>
      {children}
    </Main>
  );
}

/** The sign-in pages' frame: no navigation, nobody signed in yet. */
export const SignInFrame = styled.main({ maxWidth: '30rem', margin: '0 auto', padding: '2rem 1rem' });
