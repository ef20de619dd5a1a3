import { managesAgency } from '@agency/contracts/role-rules';
import styled from '@emotion/styled';
import { NavLink } from 'react-router-dom';
import { useCurrentUser } from '../lib/current-user';

const Nav = styled.nav(({ theme }) => ({
  display: 'flex',
  flexWrap: 'wrap',
  gap: '0.25rem 1.5rem',
  margin: '-0.75rem 0 1.5rem',
  borderBottom: `1px solid ${theme.colors.border}`,
  '& a': {
    display: 'inline-flex',
    alignItems: 'center',
    // A 44 px tap target (WCAG 2.5.5).
    minHeight: '2.75rem',
    color: theme.colors.primary,
    textDecoration: 'none',
    borderBottom: '3px solid transparent',
  },
  '& a[aria-current="page"]': { color: theme.colors.text, fontWeight: 600, borderBottomColor: theme.colors.primary },
}));

/** Settings → Agency Details | Logins | Reminders | Money model | Import (admins: it changes the agency's records). Shared by the Settings pages and Import. */
export function SettingsNav() {
  const user = useCurrentUser();
  return (
    <Nav aria-label="Settings">
      <NavLink to="/settings" end>
        Agency Details
      </NavLink>
      <NavLink to="/settings/logins">Logins</NavLink>
      <NavLink to="/settings/reminders">Reminders</NavLink>
      <NavLink to="/settings/money-model">Money model</NavLink>
      {managesAgency(user.role) && <NavLink to="/settings/import">Import</NavLink>}
    </Nav>
  );
}
