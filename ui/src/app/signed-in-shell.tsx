import { Navigate, Outlet, useLocation } from 'react-router-dom';
import { LoadState } from '../components/load-state';
import { fetchCurrentUser, takeCurrentUserAskedEarly } from '../features/session/api';
import { CurrentUserContext } from '../lib/current-user';
import { useLoader } from '../lib/use-loader';
import { Shell } from './shell';

const loadUser = (_: null, signal: AbortSignal) => takeCurrentUserAskedEarly() ?? fetchCurrentUser(signal);

/** The guard of every route inside the shell: no session → /login; a family's → its own pages. */
export function SignedInShell() {
  const { state, retry } = useLoader(loadUser, null);
  const location = useLocation();
  if (state.status === 'failed' && state.error.status === 401)
    return <Navigate to="/login" replace state={{ from: location.pathname }} />;
  return (
    <LoadState state={state} onRetry={retry}>
      {(user) =>
        // A family's login has its own pages, outside the staff shell (docs/family-access.md).
        user.role === 'family' ? (
          <Navigate to="/family/home" replace />
        ) : (
          <CurrentUserContext.Provider value={user}>
            <Shell user={user}>
              <Outlet />
            </Shell>
          </CurrentUserContext.Provider>
        )
      }
    </LoadState>
  );
}
