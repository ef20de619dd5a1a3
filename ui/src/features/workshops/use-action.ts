import { useState } from 'react';
import { useCommandIds } from '../../lib/command-id';
import { errorMessage } from '../../lib/http';

/**
 * A button's command: busy while it runs, its refusal shown. `actionOf` names the action by what
 * it sends, so a retry of it after a network failure reuses its command id and any other action
 * gets its own (`useCommandIds`).
 */
export function useAction<A extends unknown[]>(
  actionOf: (...args: A) => string,
  action: (commandId: string, ...args: A) => Promise<void>,
) {
  const commandIds = useCommandIds();
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const run = async (...args: A) => {
    const name = actionOf(...args);
    setBusy(true);
    setFailure(null);
    try {
      await action(commandIds.idFor(name), ...args);
      commandIds.done(name);
    } catch (error) {
      commandIds.done(name, error);
      setFailure(errorMessage(error));
    } finally {
      setBusy(false);
    }
  };
  return { run, busy, failure };
}
