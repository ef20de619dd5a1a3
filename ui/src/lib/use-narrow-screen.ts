import { useSyncExternalStore } from 'react';

/** Below 600 px: a phone held upright. */
const NARROW = '(max-width: 599.98px)';

const subscribe = (onChange: () => void) => {
  const query = window.matchMedia(NARROW);
  query.addEventListener('change', onChange);
  return () => query.removeEventListener('change', onChange);
};

/** Whether the screen is narrower than 600 px, following the window as it is resized or turned. */
export const useNarrowScreen = (): boolean =>
  useSyncExternalStore(
    subscribe,
    () => window.matchMedia(NARROW).matches,
    () => false,
  );
