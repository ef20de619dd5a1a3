import { useMachine } from '@xstate/react';
import { useEffect, useRef, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { HttpError } from '../../lib/http';
import { keepalive, logout } from './api';
import { sessionMachine } from './machines/session-machine';

const activityEvents = ['mousemove', 'keydown', 'click', 'scroll', 'touchstart'] as const;
const activityThrottleMs = 1000;

/** Runs the idle / warning / logout lifecycle for the signed-in shell. */
export function useSession() {
  const navigate = useNavigate();
  const navigateRef = useRef(navigate);
  navigateRef.current = navigate;
  // The machine must stay the same object across renders; it reaches the router through a ref.
  const [machine] = useState(() =>
    sessionMachine.provide({
      actions: {
        keepalive: () => {
          keepalive().catch((error: unknown) => {
            if (error instanceof HttpError && error.status === 401) navigateRef.current('/login', { replace: true });
          });
        },
        logout: () => {
          logout()
            .catch(() => undefined)
            .finally(() => navigateRef.current('/login', { replace: true }));
        },
      },
    }),
  );
  const [snapshot, send] = useMachine(machine);

  useEffect(() => {
    let last = 0;
    const onActivity = () => {
      const now = Date.now();
      if (now - last < activityThrottleMs) return;
      last = now;
      send({ type: 'session.activity' });
    };
    for (const type of activityEvents) window.addEventListener(type, onActivity, { passive: true });
    return () => {
      for (const type of activityEvents) window.removeEventListener(type, onActivity);
    };
  }, [send]);

  return {
    warning: snapshot.matches({ signedIn: { idle: 'warning' } }),
    logout: () => send({ type: 'session.logout' }),
  };
}
