import { useEffect, useState } from 'react';

/**
 * A command answered `visible: false`: it is saved, but a read model that shows it is behind
 * (or stopped). The shell tells the user; every command goes through `request`, which calls
 * `announceCatchingUp`, so no form has to.
 */
const listeners = new Set<() => void>();

export function announceCatchingUp() {
  for (const listener of listeners) listener();
}

/** true for `ms` after the last announcement. */
export function useCatchingUp(ms = 10_000): boolean {
  const [shown, setShown] = useState(false);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const listener = () => {
      setShown(true);
      clearTimeout(timer);
      timer = setTimeout(() => setShown(false), ms);
    };
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      clearTimeout(timer);
    };
  }, [ms]);
  return shown;
}
