import { describe, expect, it, vi } from 'vitest';
import { createActor, SimulatedClock } from 'xstate';
import { sessionMachine } from './session-machine';

function start() {
  const clock = new SimulatedClock();
  const keepalive = vi.fn();
  const logout = vi.fn();
  const actor = createActor(sessionMachine.provide({ actions: { keepalive, logout } }), { clock });
  actor.start();
  const inWarning = () => actor.getSnapshot().matches({ signedIn: { idle: 'warning' } });
  return { clock, actor, keepalive, logout, inWarning };
}

const second = 1000;

describe('session machine', () => {
  it('warns after 3600 s without activity', () => {
    const { clock, inWarning } = start();
    clock.increment(3600 * second - 1);
    expect(inWarning()).toBe(false);
    clock.increment(1);
    expect(inWarning()).toBe(true);
  });

  it('activity restarts the idle timer', () => {
    const { clock, actor, inWarning } = start();
    clock.increment(3000 * second);
    actor.send({ type: 'session.activity' });
    clock.increment(3000 * second);
    expect(inWarning()).toBe(false);
    clock.increment(600 * second);
    expect(inWarning()).toBe(true);
  });

  it('activity during the warning goes back to active', () => {
    const { clock, actor, inWarning, logout } = start();
    clock.increment(3600 * second);
    expect(inWarning()).toBe(true);
    actor.send({ type: 'session.activity' });
    expect(actor.getSnapshot().matches({ signedIn: { idle: 'active' } })).toBe(true);
    clock.increment(5 * second);
    expect(logout).not.toHaveBeenCalled();
  });

  it('logs out 5 s into the warning', () => {
    const { clock, actor, logout } = start();
    clock.increment(3600 * second);
    clock.increment(5 * second - 1);
    expect(logout).not.toHaveBeenCalled();
    clock.increment(1);
    expect(logout).toHaveBeenCalledTimes(1);
    expect(actor.getSnapshot().value).toBe('loggedOut');
    expect(actor.getSnapshot().status).toBe('done');
  });

  it('pings the keepalive every 15 s while the user is active', () => {
    const { clock, actor, keepalive } = start();
    for (let n = 1; n <= 4; n += 1) {
      actor.send({ type: 'session.activity' });
      clock.increment(15 * second - 1);
      expect(keepalive).toHaveBeenCalledTimes(n - 1);
      clock.increment(1);
      expect(keepalive).toHaveBeenCalledTimes(n);
    }
  });

  it('keeps the keepalive rhythm however often activity arrives', () => {
    const { clock, actor, keepalive } = start();
    for (let t = 0; t < 45; t += 1) {
      actor.send({ type: 'session.activity' });
      clock.increment(second);
    }
    expect(keepalive).toHaveBeenCalledTimes(3);
  });

  it('skips the keepalive when there was no activity since the last ping', () => {
    const { clock, actor, keepalive } = start();
    actor.send({ type: 'session.activity' });
    clock.increment(15 * second);
    clock.increment(30 * second);
    expect(keepalive).toHaveBeenCalledTimes(1);
  });

  it('logs out at once on session.logout', () => {
    const { actor, logout } = start();
    actor.send({ type: 'session.logout' });
    expect(logout).toHaveBeenCalledTimes(1);
  });

  it('lets tests shorten the delays', () => {
    const clock = new SimulatedClock();
    const logout = vi.fn();
    const machine = sessionMachine.provide({ delays: { idleTimeout: 10, warning: 5 }, actions: { logout } });
    createActor(machine, { clock }).start();
    clock.increment(10);
    expect(logout).not.toHaveBeenCalled();
    clock.increment(5);
    expect(logout).toHaveBeenCalledTimes(1);
  });
});
