import { useState } from 'react';
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

/**
 * Command ids for actions named by what they do and send (say, `move:{eventId}`, or one
 * timesheet cell's value): doing the same thing again after an unknown outcome is a retry of that
 * action and reuses its id; anything else is a new action with a new id, so one id never stands
 * for two actions (the server refuses that: docs/command-ids.md). Several actions may be pending
 * at once; an action's id is dropped once it is settled.
 */
export function commandIdsByAction(newId: () => string = () => crypto.randomUUID()) {
  const pending = new Map<string, string>();
  return {
    idFor(action: string): string {
      let id = pending.get(action);
      if (!id) {
        id = newId();
        pending.set(action, id);
      }
      return id;
    },
    /** The action was answered (`error` undefined) or failed with `error`. */
    done(action: string, error?: unknown): void {
      if (error === undefined || !keepsCommandId(error)) pending.delete(action);
    },
  };
}

/** A component's command ids, one per action (see `commandIdsByAction`), kept across renders. */
export function useCommandIds() {
  const [ids] = useState(() => commandIdsByAction());
  return ids;
}
