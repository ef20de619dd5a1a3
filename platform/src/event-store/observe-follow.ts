import { Observable } from 'rxjs';
import type { EventStore, Position, RecordedEvent } from './port';

/**
 * An adapter's `followAll` loop pushed as an Observable: events are emitted as fast as they are
 * read, so a slow consumer buffers them (use `followAll` to bound memory). Unsubscribing stops
 * the loop.
 */
export function observeFollow(
  followAll: NonNullable<EventStore['followAll']>,
  from: Position,
): Observable<RecordedEvent> {
  return new Observable<RecordedEvent>((subscriber) => {
    const stop = new AbortController();
    followAll(
      from,
      async (events) => {
        for (const event of events) {
          if (stop.signal.aborted) return;
          subscriber.next(event);
        }
      },
      { signal: stop.signal },
    ).catch((error) => {
      if (!stop.signal.aborted) subscriber.error(error);
    });
    return () => stop.abort();
  });
}
