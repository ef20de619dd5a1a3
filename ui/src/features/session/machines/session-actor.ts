import { createActor } from 'xstate';
import { sessionMachine } from './session-machine';

export type SessionActor = { send: (event: { type: 'session.activity' | 'session.logout' }) => void; stop: () => void };

/** The session machine running with the shell's keepalive and logout, telling when its warning shows or goes. */
export function startSession(
  actions: { keepalive: () => void; logout: () => void },
  onWarning: (shown: boolean) => void,
): SessionActor {
  const actor = createActor(
    sessionMachine.provide({ actions: { keepalive: actions.keepalive, logout: actions.logout } }),
  );
  actor.subscribe((snapshot) => onWarning(snapshot.matches({ signedIn: { idle: 'warning' } })));
  actor.start();
  return { send: (event) => actor.send(event), stop: () => actor.stop() };
}
