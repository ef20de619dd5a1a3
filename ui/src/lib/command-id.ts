import { useRef } from 'react';
import { HttpError } from './http';

/**
 * One command id per user action. A retry after an unknown outcome (network failure, 5xx)
 * reuses it so the server can recognise the repeat; an answer that rejected the command (4xx)
 * means it was not applied, so the next attempt is a new action with a new id.
 */
export function useCommandId() {
  const id = useRef<string | null>(null);
  return {
    current(): string {
      id.current ??= crypto.randomUUID();
      return id.current;
    },
    settle(error?: unknown): void {
      if (!error || (error instanceof HttpError && error.status >= 400 && error.status < 500)) id.current = null;
    },
  };
}
