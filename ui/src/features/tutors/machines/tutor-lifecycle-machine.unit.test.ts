import { lifecycleCases, type TutorLifecycleView } from '@agency/domain/tutor/tutor-lifecycle';
import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { offeredActions, tutorLifecycleMachine } from './tutor-lifecycle-machine';

const start = (input: TutorLifecycleView) => createActor(tutorLifecycleMachine, { input }).start();

describe('tutor lifecycle machine (the table the server decider is tested on too)', () => {
  for (const row of lifecycleCases) {
    const { allowed, ...view } = row;
    it(`${view.active ? 'active' : 'inactive'}, ${view.account}, ${view.currentStudents} current students: offers ${allowed.join(', ') || 'nothing'}`, () => {
      expect(offeredActions(start(view).getSnapshot()).sort()).toEqual([...allowed].sort());
    });
  }

  it('terminating makes the tutor inactive; reactivating makes them active again', () => {
    const actor = start({ active: true, account: 'notActivated', currentStudents: 0 });
    actor.send({ type: 'tutor.terminate' });
    expect(actor.getSnapshot().matches({ status: 'inactive' })).toBe(true);
    expect(offeredActions(actor.getSnapshot())).toEqual(['reactivate']);
    actor.send({ type: 'tutor.reactivate' });
    expect(actor.getSnapshot().matches({ status: 'active' })).toBe(true);
  });

  it('after the activation email is sent, the sent message shows instead of the button', () => {
    const actor = start({ active: true, account: 'notActivated', currentStudents: 0 });
    actor.send({ type: 'tutor.sendActivation' });
    expect(actor.getSnapshot().matches({ account: 'activationSent' })).toBe(true);
    expect(offeredActions(actor.getSnapshot())).not.toContain('sendActivation');
  });

  it('ignores terminate while the tutor has current students', () => {
    const actor = start({ active: true, account: 'activated', currentStudents: 1 });
    actor.send({ type: 'tutor.terminate' });
    expect(actor.getSnapshot().matches({ status: 'active' })).toBe(true);
  });

  it('keeps the partner role of an activated account', () => {
    const actor = start({ active: true, account: 'activated', currentStudents: 0 });
    actor.send({ type: 'tutor.grantPartner', partner: true });
    expect(actor.getSnapshot().context.partner).toBe(true);
  });
});
