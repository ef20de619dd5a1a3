import { useEffect, useRef, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { HttpError } from '../../lib/http';
import { keepalive, logout } from './api';
import type { SessionActor } from './machines/session-actor';

const activityEvents = ['mousemove', 'keydown', 'click', 'scroll', 'touchstart'] as const;
const activityThrottleMs = 1000;

/**
 * Runs the idle / warning / logout lifecycle for the signed-in shell. The session machine (and
 * xstate with it) is loaded once the shell is up, not before the first page can draw: 14 KB and
 * its start-up off the way of a list's first paint on a slow phone. Its timers run for
 * an hour and fifteen seconds, so starting them a moment later changes nothing; a logout asked for
 * before it has loaded logs out at once.
 */
export function useSession() {
  const navigate = useNavigate();
  const navigateRef = useRef(navigate);
  navigateRef.current = navigate;
  const [warning, setWarning] = useState(false);
  const actorRef = useRef<SessionActor | null>(null);

  const logOut = useRef(() => {
    logout()
      .catch(() => undefined)
      .finally(() => navigateRef.current('/login', { replace: true }));
  }).current;

  useEffect(() => {
    let stopped = false;
    import('./machines/session-actor').then(({ startSession }) => {
      if (stopped) return;
      actorRef.current = startSession(
        {
          keepalive: () => {
            keepalive().catch((error: unknown) => {
              if (error instanceof HttpError && error.status === 401) navigateRef.current('/login', { replace: true });
            });
          },
          logout: logOut,
        },
        setWarning,
      );
    });
    return () => {
      stopped = true;
      actorRef.current?.stop();
      actorRef.current = null;
    };
  }, [logOut]);

  useEffect(() => {
    let last = 0;
    const onActivity = () => {
      const now = Date.now();
      if (now - last < activityThrottleMs) return;
      last = now;
      actorRef.current?.send({ type: 'session.activity' });
    };
    for (const type of activityEvents) window.addEventListener(type, onActivity, { passive: true });
    return () => {
      for (const type of activityEvents) window.removeEventListener(type, onActivity);
    };
  }, []);

  return {
    warning,
    logout: () => (actorRef.current ? actorRef.current.send({ type: 'session.logout' }) : logOut()),
  };
}
