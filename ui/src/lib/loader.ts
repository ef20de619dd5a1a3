import { BehaviorSubject, catchError, EMPTY, map, Observable, of, Subject, startWith, switchMap } from 'rxjs';
import { errorMessage, HttpError } from './http';

export type LoadFailure = { message: string; status?: number };

export type LoaderState<R> =
  | { status: 'loading'; data?: undefined; error?: undefined }
  | { status: 'loaded'; data: R; error?: undefined }
  | { status: 'failed'; data?: undefined; error: LoadFailure };

export interface Loader<P, R> {
  state$: Observable<LoaderState<R>>;
  /** The state now, for synchronous readers (React's useSyncExternalStore). */
  current(): LoaderState<R>;
  load(params: P): void;
  /** Loads again with the last parameters. */
  retry(): void;
  /** Loads again with the last parameters, keeping what is shown until the answer comes (no Loading…). */
  refresh(): void;
  /** Drops the request in flight (its answer is ignored); the state stays as it is. */
  cancel(): void;
  dispose(): void;
}

export type Fetcher<P, R> = (params: P, signal: AbortSignal) => Promise<R>;

function toFailure(error: unknown): LoadFailure {
  return error instanceof HttpError
    ? { message: error.message, status: error.status }
    : { message: errorMessage(error) };
}

/** Wraps one fetch as an observable whose unsubscription aborts the request. */
function fetchOnce<P, R>(fetcher: Fetcher<P, R>, params: P): Observable<R> {
  return new Observable<R>((subscriber) => {
    const controller = new AbortController();
    fetcher(params, controller.signal).then(
      (value) => {
        subscriber.next(value);
        subscriber.complete();
      },
      (error: unknown) => subscriber.error(error),
    );
    return () => controller.abort();
  });
}

/**
 * Loads with the latest parameters: a new `load` cancels the request in flight
 * (`switchMap`), so a slow earlier answer never overwrites a newer one.
 */
export function createLoader<P, R>(fetcher: Fetcher<P, R>): Loader<P, R> {
  const requests = new Subject<{ params: P; quiet?: boolean } | null>();
  const state = new BehaviorSubject<LoaderState<R>>({ status: 'loading' });
  let last: { params: P } | undefined;

  const subscription = requests
    .pipe(
      switchMap((request) =>
        request === null
          ? EMPTY
          : fetchOnce(fetcher, request.params).pipe(
              map((data): LoaderState<R> => ({ status: 'loaded', data })),
              catchError((error: unknown) => of<LoaderState<R>>({ status: 'failed', error: toFailure(error) })),
              // A quiet refresh keeps the shown data until the new answer replaces it.
              request.quiet
                ? (answer: Observable<LoaderState<R>>) => answer
                : startWith<LoaderState<R>>({ status: 'loading' }),
            ),
      ),
    )
    .subscribe(state);

  return {
    state$: state.asObservable(),
    current: () => state.getValue(),
    load(params) {
      last = { params };
      requests.next(last);
    },
    retry() {
      if (last) requests.next(last);
    },
    refresh() {
      if (last) requests.next({ ...last, quiet: true });
    },
    cancel() {
      requests.next(null);
    },
    dispose() {
      subscription.unsubscribe();
    },
  };
}
