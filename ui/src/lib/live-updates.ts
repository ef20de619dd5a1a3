import { useEffect, useRef } from 'react';

/** The read models (projection names) a screen shows: 'lessons', 'invoices', 'tutors'… */
type Listener = (readModels: string[]) => void;

const listeners = new Set<Listener>();
let source: EventSource | null = null;

/**
 * One server-sent events stream (GET /api/live, the session cookie authenticating it) for the
 * whole tab, open while any screen listens: each `change` names the read models that moved,
 * as far as the user may see them. The browser reconnects by itself after a dropped connection.
 */
function connect() {
  source = new EventSource('/api/live');
  source.addEventListener('change', (event) => {
    const { readModels } = JSON.parse((event as MessageEvent<string>).data) as { readModels: string[] };
    for (const listener of listeners) listener(readModels);
  });
}

/** Calls `refresh` whenever one of `readModels` has moved: the screen stays current, never polling. */
export function useLiveRefresh(readModels: readonly string[], refresh: () => void) {
  const latest = useRef(refresh);
  latest.current = refresh;
  const key = readModels.join(' ');
  useEffect(() => {
    if (typeof EventSource === 'undefined') return;
    const wanted = key.split(' ');
    const listener: Listener = (moved) => {
      if (moved.some((name) => wanted.includes(name))) latest.current();
    };
    listeners.add(listener);
    if (!source) connect();
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0) {
        source?.close();
        source = null;
      }
    };
  }, [key]);
}
