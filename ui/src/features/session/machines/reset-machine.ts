import { assign, fromPromise, type SnapshotFrom, setup } from 'xstate';

export type ResetOutcome = 'sent' | 'failed' | 'tooManyAttempts';

export type ResetEvent = { type: 'reset.submit'; username: string };

/**
 * The /reset screen. Its states are the spec's: 0 entry, 1 success, 2 error, 3 too many
 * attempts. The form shows in 0 and 2; `requestReset` is the call, provided by the page.
 */
export const resetMachine = setup({
  types: { context: {} as { username: string }, events: {} as ResetEvent },
  actors: {
    requestReset: fromPromise<ResetOutcome, { username: string }>(async () => 'failed'),
  },
}).createMachine({
  id: 'reset',
  context: { username: '' },
  initial: 'entry',
  states: {
    entry: {
      on: { 'reset.submit': { target: 'submitting', actions: assign({ username: ({ event }) => event.username }) } },
    },
    submitting: {
      invoke: {
        src: 'requestReset',
        input: ({ context }) => ({ username: context.username }),
        onDone: [
          { guard: ({ event }) => event.output === 'sent', target: 'success' },
          { guard: ({ event }) => event.output === 'tooManyAttempts', target: 'tooManyAttempts' },
          { target: 'error' },
        ],
        onError: { target: 'error' },
      },
    },
    success: { type: 'final' },
    error: {
      on: { 'reset.submit': { target: 'submitting', actions: assign({ username: ({ event }) => event.username }) } },
    },
    tooManyAttempts: { type: 'final' },
  },
});

export type ResetScreenState = 0 | 1 | 2 | 3;

/** The spec's screen state number; a request in flight keeps the screen it came from (the form). */
export function resetScreenState(snapshot: SnapshotFrom<typeof resetMachine>): ResetScreenState {
  if (snapshot.matches('success')) return 1;
  if (snapshot.matches('error')) return 2;
  if (snapshot.matches('tooManyAttempts')) return 3;
  return 0;
}

export const RESET_TEXTS = {
  1: 'Thank you. An email has been sent with link for you to change your password.',
  2: 'There was a problem resetting your password. Please check you username or email address and try again.',
  3: 'There were too many attempts to reset your password. Please contact the admin to have your password reset.',
} as const;
