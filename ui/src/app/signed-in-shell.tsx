import { Navigate, Outlet, useLocation } from 'react-router-dom';
import { LoadState } from '../components/load-state';
import { fetchCurrentUser, takeCurrentUserAskedEarly } from '../features/session/api';
import { CurrentUserContext } from '../lib/current-user';
import { useLoader } from '../lib/use-loader';
import { Shell } from './shell';

const loadUser = (_: null, signal: AbortSignal) => takeCurrentUserAskedEarly() ?? fetchCurrentUser(signal);

/** The guard of every route inside the shell: no session → /login. */
export function SignedInShell() {
  const { state, retry } = useLoader(loadUser, null);
  const location = useLocation();
  if (state.status === 'failed' && state.error.status === 401)
    return <Navigate to="/login" replace state={{ from: location.pathname }} />;
  return (
    <LoadState state={state} onRetry={retry}>
      {(user) => (
        <CurrentUserContext.Provider value={user}>
          <Shell user={user}>
            <Outlet />
          </Shell>
        </CurrentUserContext.Provider>
      )}
    </LoadState>
  );
}
