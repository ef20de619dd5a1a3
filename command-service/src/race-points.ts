/**
 * The one module of test hooks that production code passes through (production never sets one).
 *
 * Race points: named points in commands where a rule spanning streams or tables has been checked
 * and the decisive write has not happened yet. Race tests set a hook that waits on a barrier, so
 * that two requests both pass their checks before either writes.
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

/**
 * The steps of a command where a test may make it fail or stop (a crash is a step that never
 * returns): after its id is claimed, after each append, after its handler, before its answer is
 * recorded. Reactors' commands pass the `appended` step too.
 */
export type FaultStep =
  | { step: 'claimed'; commandId: string }
  | { step: 'appended'; commandId: string; streamId: string }
  | { step: 'handled'; commandId: string }
  | { step: 'recording'; commandId: string };

export type Faults = { at: (fault: FaultStep) => void | Promise<void> };

let faults: Faults | undefined;

/** Passes at once unless a test injects faults. */
export async function faultPoint(fault: FaultStep): Promise<void> {
  if (faults) await faults.at(fault);
}

/** For tests: `at` is called at every step of every command (it may throw or wait); `undefined` takes it off. */
export function injectFaults(injected: Faults | undefined): void {
  faults = injected;
}
