import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { createLoader, type Fetcher, type LoaderState } from './loader';

/**
 * Loads `params` with `fetcher` whenever the parameters change (compared by value);
 * the latest request wins.
 */
export function useLoader<P, R>(
  fetcher: Fetcher<P, R>,
  params: P,
): { state: LoaderState<R>; retry: () => void; reload: () => void; refresh: () => void } {
  const fetcherRef = useRef(fetcher);
  fetcherRef.current = fetcher;
  const [loader] = useState(() => createLoader<P, R>((p, signal) => fetcherRef.current(p, signal)));

  const state = useSyncExternalStore(loader.subscribe, loader.current, loader.current);

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
