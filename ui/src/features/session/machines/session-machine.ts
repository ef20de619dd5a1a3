import { assign, setup } from 'xstate';

export type SessionEvent = { type: 'session.activity' } | { type: 'session.logout' };

/**
 * The signed-in session in the browser: idle for `idleTimeout` → a `warning` period →
 * logged out. Activity resets the idle timer and dismisses the warning. While signed in, a
 * keepalive ping goes out every `keepalive` interval if there was activity since the last one,
 * so an idle tab does not keep the server session alive on its own.
 */
export const sessionMachine = setup({
  types: {
    context: {} as { activeSincePing: boolean },
    events: {} as SessionEvent,
  },
  delays: {
    idleTimeout: 3_600_000,
    warning: 5_000,
    keepalive: 15_000,
  },
  actions: {
    markActivity: assign({ activeSincePing: true }),
    ping: assign({ activeSincePing: false }),
    keepalive: () => {},
    logout: () => {},
  },
  guards: {
    hadActivity: ({ context }) => context.activeSincePing,
  },
}).createMachine({
  id: 'session',
  context: { activeSincePing: false },
  initial: 'signedIn',
  states: {
    signedIn: {
      type: 'parallel',
      on: { 'session.logout': '#session.loggedOut' },
      states: {
        idle: {
          initial: 'active',
          states: {
            active: {
              after: { idleTimeout: 'warning' },
              on: { 'session.activity': { target: 'active', reenter: true, actions: 'markActivity' } },
            },
            warning: {
              after: { warning: '#session.loggedOut' },
              on: { 'session.activity': { target: 'active', actions: 'markActivity' } },
            },
          },
        },
        keepalive: {
          initial: 'waiting',
          states: {
            waiting: {
              after: {
                keepalive: [
                  { guard: 'hadActivity', target: 'waiting', reenter: true, actions: ['ping', 'keepalive'] },
                  { target: 'waiting', reenter: true },
                ],
              },
            },
          },
        },
      },
    },
    loggedOut: {
      type: 'final',
      entry: 'logout',
    },
  },
});
