import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, waitFor } from 'xstate';
import { consultationActionsMachine } from './consultation-actions-machine';

const start = (cancel: (id: string) => Promise<void>) => {
  const reloads: number[] = [];
  const actor = createActor(
    consultationActionsMachine.provide({
      actors: { cancelConsultation: fromPromise(({ input }) => cancel(input.consultationId)) },
      actions: { reload: () => reloads.push(1) },
    }),
  ).start();
  return { actor, reloads };
};

describe('the consultations list’s row actions', () => {
  it('cancels only once confirmed, then reloads the list', async () => {
    const cancelled: string[] = [];
    const { actor, reloads } = start(async (id) => {
      cancelled.push(id);
    });
    actor.send({ type: 'cancel.ask', consultationId: 'c1' });
    expect(actor.getSnapshot().value).toBe('confirmingCancel');
    actor.send({ type: 'cancel.dismiss' });
    expect(actor.getSnapshot().value).toBe('idle');
    expect(cancelled).toEqual([]);
    actor.send({ type: 'cancel.ask', consultationId: 'c1' });
    actor.send({ type: 'cancel.confirm' });
    await waitFor(actor, (snapshot) => snapshot.matches('idle'));
    expect(cancelled).toEqual(['c1']);
    expect(reloads).toHaveLength(1);
  });

  it('stays on the question with the server’s message when the cancellation is refused', async () => {
    const { actor, reloads } = start(() => Promise.reject(new Error('This consultation was cancelled already.')));
    actor.send({ type: 'cancel.ask', consultationId: 'c2' });
    actor.send({ type: 'cancel.confirm' });
    await waitFor(actor, (snapshot) => snapshot.context.failure !== null);
    expect(actor.getSnapshot().value).toBe('confirmingCancel');
    expect(actor.getSnapshot().context).toEqual({
      consultationId: 'c2',
      failure: 'This consultation was cancelled already.',
    });
    expect(reloads).toHaveLength(0);
  });

  it('opens one row’s payment form at a time and reloads once a payment is recorded', () => {
    const { actor, reloads } = start(async () => {});
    actor.send({ type: 'payment.open', consultationId: 'c1' });
    actor.send({ type: 'payment.open', consultationId: 'c3' });
    expect(actor.getSnapshot().context.consultationId).toBe('c3');
    actor.send({ type: 'payment.recorded' });
    expect(actor.getSnapshot().value).toBe('idle');
    expect(actor.getSnapshot().context.consultationId).toBeNull();
    expect(reloads).toHaveLength(1);
  });
});
