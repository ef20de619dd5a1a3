import { useState } from 'react';
import type { commandIdSlot } from '../../lib/command-id';
import { errorMessage } from '../../lib/http';

/** A button's command: busy while it runs, its refusal shown, its command id settled by the outcome. */
export function useAction<A extends unknown[]>(
  action: (...args: A) => Promise<void>,
  commandId: ReturnType<typeof commandIdSlot>,
) {
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const run = async (...args: A) => {
    setBusy(true);
    setFailure(null);
    try {
      await action(...args);
      commandId.settle();
    } catch (error) {
      commandId.settle(error);
      setFailure(errorMessage(error));
    } finally {
      setBusy(false);
    }
  };
  return { run, busy, failure };
}
