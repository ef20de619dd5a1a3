import type { TutorAction, TutorLifecycleView } from '@agency/domain/tutor/tutor-lifecycle';
import { assign, type SnapshotFrom, setup, stateIn } from 'xstate';

export type TutorLifecycleEvent =
  | { type: 'tutor.terminate' }
  | { type: 'tutor.reactivate' }
  | { type: 'tutor.sendActivation' }
  | { type: 'tutor.grantPartner'; partner: boolean };

/**
 * A tutor as the detail page sees it: active or inactive × account not activated, activation
 * sent or activated. It decides which admin actions are offered; the server's tutor decider
 * enforces the same rules (both are tested on `lifecycleCases`).
 */
export const tutorLifecycleMachine = setup({
  types: {
    context: {} as TutorLifecycleView & { partner: boolean },
    events: {} as TutorLifecycleEvent,
    input: {} as TutorLifecycleView & { partner?: boolean },
  },
  guards: {
    startsActive: ({ context }) => context.active,
    startsActivated: ({ context }) => context.account === 'activated',
    startsSent: ({ context }) => context.account === 'activationSent',
    noCurrentStudents: ({ context }) => context.currentStudents === 0,
    tutorActive: stateIn({ status: 'active' }),
  },
  actions: {
    recordPartner: assign({ partner: ({ event }) => (event.type === 'tutor.grantPartner' ? event.partner : false) }),
  },
}).createMachine({
  id: 'tutorLifecycle',
  type: 'parallel',
  context: ({ input }) => ({ ...input, partner: input.partner ?? false }),
  states: {
    status: {
      initial: 'restoring',
      states: {
        restoring: { always: [{ guard: 'startsActive', target: 'active' }, { target: 'inactive' }] },
        active: { on: { 'tutor.terminate': { guard: 'noCurrentStudents', target: 'inactive' } } },
        inactive: { on: { 'tutor.reactivate': { target: 'active' } } },
      },
    },
    account: {
      initial: 'restoring',
      states: {
        restoring: {
          always: [
            { guard: 'startsActivated', target: 'activated' },
            { guard: 'startsSent', target: 'activationSent' },
            { target: 'notActivated' },
          ],
        },
        notActivated: { on: { 'tutor.sendActivation': { guard: 'tutorActive', target: 'activationSent' } } },
        activationSent: {},
        activated: { on: { 'tutor.grantPartner': { actions: 'recordPartner' } } },
      },
    },
  },
});

type Snapshot = SnapshotFrom<typeof tutorLifecycleMachine>;

const eventFor: Record<TutorAction, TutorLifecycleEvent> = {
  terminate: { type: 'tutor.terminate' },
  reactivate: { type: 'tutor.reactivate' },
  sendActivation: { type: 'tutor.sendActivation' },
  grantPartner: { type: 'tutor.grantPartner', partner: true },
};

/** The actions the detail page offers now. */
export const offeredActions = (snapshot: Snapshot): TutorAction[] =>
  (Object.keys(eventFor) as TutorAction[]).filter((action) => snapshot.can(eventFor[action]));
