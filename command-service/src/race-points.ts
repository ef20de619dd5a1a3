/**
 * Named points in commands where a rule spanning streams or tables has been checked and the
 * decisive write has not happened yet. Production never sets a hook; race tests set one that
 * waits on a barrier, so that two requests both pass their checks before either writes.
 */
export type RacePoint =
  /** An engagement start has checked the tutor and the child, before the tutor's roster is appended to. */
  | 'engagement.start'
  /** A tutor termination has loaded the tutor, before `TutorTerminated` is appended. */
  | 'tutor.terminate'
  /** A new tutor's names are inserted, their transaction not yet committed. */
  | 'tutor.namesReserved'
  /** A login's username and credentials are inserted, their transaction not yet committed. */
  | 'login.usernameReserved'
  /** An activation has checked the code and the tutor, before anything is written. */
  | 'activation.checked'
  /** A workshop invoice has checked its registrations, before the account is marked invoiced. */
  | 'workshopInvoice.checked';

const hooks = new Map<RacePoint, () => Promise<void>>();

/** Passes at once unless a test set a hook for this point. */
export async function racePoint(point: RacePoint): Promise<void> {
  const hook = hooks.get(point);
  if (hook) await hook();
}

/** For tests: runs `hook` whenever a command reaches `point`; returns the function that removes it. */
export function onRacePoint(point: RacePoint, hook: () => Promise<void>): () => void {
  hooks.set(point, hook);
  return () => {
    if (hooks.get(point) === hook) hooks.delete(point);
  };
}

/** For tests: a barrier that opens once `parties` callers are waiting at it. */
export function barrier(parties: number) {
  let waiting = 0;
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return async () => {
    waiting += 1;
    if (waiting >= parties) open();
    await opened;
  };
}
