import { startTransition, useCallback, useEffect, useRef, useState } from 'react';
import { createLoader, type Fetcher, type LoaderState } from './loader';

/**
 * Loads `params` with `fetcher` whenever the parameters change (compared by value);
 * the latest request wins. Each new state is drawn in a transition (not as an external store's
 * update, which React always draws in one go): a page of a hundred rows is drawn in slices that
 * leave the main thread free between them, instead of one long task.
 */
export function useLoader<P, R>(
  fetcher: Fetcher<P, R>,
  params: P,
): { state: LoaderState<R>; retry: () => void; reload: () => void; refresh: () => void } {
  const fetcherRef = useRef(fetcher);
  fetcherRef.current = fetcher;
  const [loader] = useState(() => createLoader<P, R>((p, signal) => fetcherRef.current(p, signal)));

  const [state, setState] = useState(loader.current);
  // Subscribed before the first load below is started, so no change of state is missed.
  useEffect(() => {
    const show = () => {
      const next = loader.current();
      startTransition(() => setState(next));
    };
    show();
    return loader.subscribe(show);
  }, [loader]);

  const key = JSON.stringify(params);
  const paramsRef = useRef(params);
  paramsRef.current = params;
  useEffect(() => {
    loader.load(paramsRef.current);
    return () => loader.cancel();
  }, [loader, key]);

  const retry = useCallback(() => loader.retry(), [loader]);
  const refresh = useCallback(() => loader.refresh(), [loader]);
  return { state, retry, reload: retry, refresh };
}
