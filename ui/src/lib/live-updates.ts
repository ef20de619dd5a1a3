import { useEffect, useRef } from 'react';

/**
 * The read models (projection names) that moved: 'lessons', 'invoices', 'tutors'…; or 'all' after
 * the stream was reopened, when what moved in between is not known.
 */
export type Listener = (readModels: string[] | 'all') => void;

/** The first wait before asking again for a stream the server refused, and the longest. */
const FIRST_RETRY_MS = 5_000;
const LAST_RETRY_MS = 5 * 60_000;

const listeners = new Set<Listener>();
let source: EventSource | null = null;
let retry: ReturnType<typeof setTimeout> | undefined;
let retryMs = FIRST_RETRY_MS;

/**
 * One server-sent events stream (GET /api/live, the session cookie authenticating it) for the
 * whole tab, open while any screen listens: each `change` names the read models that moved,
 * as far as the user may see them. The server closes every stream after a while
 * (docs/limits.md, "Live updates"); the browser then reconnects by itself, and every screen
 * reloads once, for what it may have missed in between. A stream the server refuses (a 429
 * past the caps on streams, a 401 once signed out) the browser does not ask for again: it is
 * asked for again here, less often each time.
 */
function connect() {
  const opened = new EventSource('/api/live');
  source = opened;
  let openedBefore = false;
  opened.addEventListener('open', () => {
    retryMs = FIRST_RETRY_MS;
    if (openedBefore) for (const listener of listeners) listener('all');
    openedBefore = true;
  });
  opened.addEventListener('change', (event) => {
    const { readModels } = JSON.parse((event as MessageEvent<string>).data) as { readModels: string[] };
    for (const listener of listeners) listener(readModels);
  });
  opened.addEventListener('error', () => {
    // CONNECTING: a stream that ended, which the browser opens again after the server's `retry`.
    if (opened.readyState !== EventSource.CLOSED || source !== opened) return;
    source = null;
    retry = setTimeout(() => {
      retry = undefined;
      if (listeners.size > 0 && !source) connect();
    }, retryMs);
    retryMs = Math.min(retryMs * 2, LAST_RETRY_MS);
  });
}

function disconnect() {
  clearTimeout(retry);
  retry = undefined;
  source?.close();
  source = null;
  retryMs = FIRST_RETRY_MS;
}

/**
 * Hears every change the tab's one stream brings (opening it for the first listener, closing it
 * with the last); the function answered stops hearing.
 */
export function listenLive(listener: Listener): () => void {
  listeners.add(listener);
  if (!source && !retry) connect();
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0) disconnect();
  };
}

/** Calls `refresh` whenever one of `readModels` has moved: the screen stays current, never polling. */
export function useLiveRefresh(readModels: readonly string[], refresh: () => void) {
  const latest = useRef(refresh);
  latest.current = refresh;
  const key = readModels.join(' ');
  useEffect(() => {
    if (typeof EventSource === 'undefined') return;
    const wanted = key.split(' ');
    return listenLive((moved) => {
      if (moved === 'all' || moved.some((name) => wanted.includes(name))) latest.current();
    });
  }, [key]);
}
