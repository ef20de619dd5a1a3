import styled from '@emotion/styled';
import { type ReactNode, useEffect, useState } from 'react';
import { Link, NavLink, useLocation } from 'react-router-dom';
import { SessionWarning } from '../features/session/components/session-warning';
import { useSession } from '../features/session/use-session';
import { useCatchingUp } from '../lib/catching-up';
import { displayName, type User } from '../lib/current-user';
import { CatchingUpNotice, HealthBanner } from './health-banner';
import { type MenuEntry, menu, menuForRole } from './menu';
import { theme } from './theme';
import { UserMenu } from './user-menu';

const wideQuery = '(min-width: 64em)';
/** A phone held upright: the header keeps the menu's icon, the logo and the account menu. */
const narrow = '@media (max-width: 37.5em)';
const isWide = () => typeof window !== 'undefined' && window.matchMedia?.(wideQuery).matches;

const Header = styled.header(({ theme }) => ({
  position: 'sticky',
  top: 0,
  zIndex: 30,
  display: 'flex',
  alignItems: 'center',
  gap: '1rem',
  height: '3.5rem',
  padding: '0 1rem',
  [narrow]: { gap: '0.5rem', padding: '0 0.75rem' },
  background: theme.colors.surface,
  borderBottom: `1px solid ${theme.colors.border}`,
}));

const MenuButton = styled.button(({ theme }) => ({
  display: 'inline-flex',
  alignItems: 'center',
  gap: '0.5rem',
  font: 'inherit',
  fontWeight: 600,
  padding: '0.4rem 0.8rem',
  border: `1px solid ${theme.colors.border}`,
  borderRadius: theme.radius,
  background: theme.colors.surface,
  color: theme.colors.text,
  cursor: 'pointer',
}));

const Logo = styled(Link)(({ theme }) => ({
  fontWeight: 700,
  fontSize: '1.15rem',
  whiteSpace: 'nowrap',
  [narrow]: { fontSize: '1rem' },
  color: theme.colors.text,
  textDecoration: 'none',
}));

const Spacer = styled.div({ flex: 1 });

/** The dropdown holds Logout too: on a narrow header only it remains. */
const HeaderLogout = styled.a({ whiteSpace: 'nowrap', [narrow]: { display: 'none' } });
/** The word beside the menu's icon: still its name for screen readers on a phone. */
const MenuWord = styled.span({
  [narrow]: { position: 'absolute', width: 1, height: 1, overflow: 'hidden', clip: 'rect(0 0 0 0)' },
});

const Sidebar = styled.nav<{ open: boolean }>(({ theme, open }) => ({
  position: 'fixed',
  top: '3.5rem',
  bottom: 0,
  left: 0,
  zIndex: 20,
  width: theme.sidebarWidth,
  overflowY: 'auto',
  padding: '1rem 0',
  background: theme.colors.sidebar,
  color: theme.colors.sidebarText,
  transform: open ? 'none' : 'translateX(-100%)',
  visibility: open ? 'visible' : 'hidden',
  transition: 'transform 0.2s ease, visibility 0.2s',
  boxShadow: open ? '4px 0 16px rgba(16, 42, 67, 0.2)' : 'none',
  [theme.wide]: { boxShadow: 'none' },
}));

const MenuList = styled.ul({ listStyle: 'none', margin: 0, padding: 0 });

const MenuLink = styled(NavLink)<{ depth: number }>(({ theme, depth }) => ({
  display: 'block',
  padding: `0.6rem 1.25rem 0.6rem ${1.25 + depth * 1.25}rem`,
  color: theme.colors.sidebarText,
  textDecoration: 'none',
  fontWeight: depth === 0 ? 600 : 400,
  '&:hover': { background: theme.colors.sidebarActive },
  '&.active': { background: theme.colors.sidebarActive, boxShadow: `inset 4px 0 0 ${theme.colors.focus}` },
}));

const Main = styled.main<{ shifted: boolean }>(({ theme, shifted }) => ({
  padding: '2rem 1.5rem 3rem',
  maxWidth: '80rem',
  [narrow]: { padding: '1.25rem 0.75rem 2.5rem' },
  [theme.wide]: { marginLeft: shifted ? theme.sidebarWidth : 0, padding: '2rem 2rem 3rem' },
}));

const GroupLabel = styled.span<{ depth: number }>(({ depth }) => ({
  display: 'block',
  padding: `0.6rem 1.25rem 0.6rem ${1.25 + depth * 1.25}rem`,
  fontWeight: 600,
}));

/** Items with sub-items are group labels: only the sub-items have screens. */
function MenuItems({ items, depth }: { items: MenuEntry[]; depth: number }) {
  return (
    <MenuList>
      {items.map((item) => (
        <li key={item.route}>
          {item.children.length > 0 ? (
            <>
              <GroupLabel depth={depth}>{item.label}</GroupLabel>
              <MenuItems items={item.children} depth={depth + 1} />
            </>
          ) : (
            <MenuLink to={item.route} depth={depth}>
              {item.label}
            </MenuLink>
          )}
        </li>
      ))}
    </MenuList>
  );
}

export function Shell({ user, children }: { user: User; children: ReactNode }) {
  const [open, setOpen] = useState(isWide);
  const location = useLocation();
  const session = useSession();
  const items = menuForRole(menu, user.role);
  const catchingUp = useCatchingUp();

  // On a narrow screen the sidebar covers the page, so it closes after each navigation.
  useEffect(() => {
    if (!isWide()) setOpen(false);
  }, [location.pathname]);

  return (
    <>
      <Header>
        <MenuButton type="button" aria-expanded={open} aria-controls="sidebar" onClick={() => setOpen((o) => !o)}>
          <svg width="18" height="18" viewBox="0 0 18 18" aria-hidden="true" focusable="false">
            <path d="M2 4h14M2 9h14M2 14h14" stroke={theme.colors.text} strokeWidth="2" />
          </svg>
          <MenuWord>Menu</MenuWord>
        </MenuButton>
        <Logo to="/dashboard">Tutoring Agency</Logo>
        <Spacer />
        <UserMenu name={displayName(user)} onLogout={session.logout} />
        <HeaderLogout
          href="/login"
          onClick={(event) => {
            event.preventDefault();
            session.logout();
          }}
        >
          Logout
        </HeaderLogout>
      </Header>
      <Sidebar id="sidebar" aria-label="Main" open={open}>
        <MenuItems items={items} depth={0} />
      </Sidebar>
      {session.warning ? <SessionWarning /> : null}
      <Main shifted={open}>
        {user.role === 'admin' ? <HealthBanner /> : null}
        {children}
      </Main>
      <CatchingUpNotice shown={catchingUp} />
    </>
  );
}
