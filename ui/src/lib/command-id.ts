import { useRef } from 'react';
import { HttpError } from './http';

/**
 * Whether the outcome of a command is still unknown after this error, so that a retry must send
 * the same command id (the server then completes the command once, or replays its answer): the
 * server could not be reached, failed (5xx), or is still running the first delivery
 * (`409 command_in_progress`). Any other answer settled the command: a 4xx refused it and
 * nothing was applied, so the next attempt is a new action with a new id.
 */
export function keepsCommandId(error: unknown): boolean {
  if (!(error instanceof HttpError)) return true;
  if (error.status === 0 || error.status >= 500) return true;
  return error.code === 'command_in_progress';
}

/** The command id of one user action, kept across its retries until the command is settled. */
export function commandIdSlot(newId: () => string = () => crypto.randomUUID()) {
  let id: string | null = null;
  return {
    current(): string {
      id ??= newId();
      return id;
    },
    settle(error?: unknown): void {
      if (error === undefined || !keepsCommandId(error)) id = null;
    },
  };
}

/**
 * Command ids for actions named by what they send (say, one timesheet cell's value): saving the
 * same thing again after an unknown outcome is a retry of that action and reuses its id; anything
 * else is a new action. Several actions may be pending at once.
 */
export function commandIdsByAction(newId: () => string = () => crypto.randomUUID()) {
  const pending = new Map<string, string>();
  return {
    for(action: string): string {
      let id = pending.get(action);
      if (!id) {
        id = newId();
        pending.set(action, id);
      }
      return id;
    },
    settle(action: string, error?: unknown): void {
      if (error === undefined || !keepsCommandId(error)) pending.delete(action);
    },
  };
}

/**
 * One command id per user action. A retry after an unknown outcome (network failure, 5xx, or
 * still in progress) reuses it so the server can recognise the repeat; an answer that rejected
 * the command (other 4xx) means it was not applied, so the next attempt is a new id.
 */
export function useCommandId() {
  const slot = useRef<ReturnType<typeof commandIdSlot> | null>(null);
  slot.current ??= commandIdSlot();
  return slot.current;
}
