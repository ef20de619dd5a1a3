import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, waitFor } from 'xstate';
import { type ResetOutcome, resetMachine, resetScreenState } from './reset-machine';

function start(answer: (username: string) => Promise<ResetOutcome>) {
  const asked: string[] = [];
  const machine = resetMachine.provide({
    actors: {
      requestReset: fromPromise<ResetOutcome, { username: string }>(({ input }) => {
        asked.push(input.username);
        return answer(input.username);
      }),
    },
  });
  return { actor: createActor(machine).start(), asked };
}

const settled = (actor: ReturnType<typeof start>['actor']) =>
  waitFor(actor, (snapshot) => !snapshot.matches('submitting'));

describe('reset password machine', () => {
  it('starts in state 0 (entry)', () => {
    const { actor } = start(async () => 'sent');
    expect(resetScreenState(actor.getSnapshot())).toBe(0);
  });

  it('goes to state 1 (success) when the e-mail was sent', async () => {
    const { actor, asked } = start(async () => 'sent');
    actor.send({ type: 'reset.submit', username: 'jsmith' });
    await settled(actor);
    expect(asked).toEqual(['jsmith']);
    expect(resetScreenState(actor.getSnapshot())).toBe(1);
  });

  it('goes to state 2 (error) on a false flag or a failed call, and may try again from there', async () => {
    let next: ResetOutcome | 'throw' = 'failed';
    const { actor } = start(async () => {
      if (next === 'throw') throw new Error('network');
      return next;
    });
    actor.send({ type: 'reset.submit', username: 'x' });
    await settled(actor);
    expect(resetScreenState(actor.getSnapshot())).toBe(2);
    next = 'throw';
    actor.send({ type: 'reset.submit', username: 'y' });
    await settled(actor);
    expect(resetScreenState(actor.getSnapshot())).toBe(2);
    next = 'sent';
    actor.send({ type: 'reset.submit', username: 'z' });
    await settled(actor);
    expect(resetScreenState(actor.getSnapshot())).toBe(1);
  });

  it('goes to state 3 (too many attempts) and stays there', async () => {
    const { actor } = start(async () => 'tooManyAttempts');
    actor.send({ type: 'reset.submit', username: 'x' });
    await settled(actor);
    expect(resetScreenState(actor.getSnapshot())).toBe(3);
    expect(actor.getSnapshot().status).toBe('done');
  });
});
