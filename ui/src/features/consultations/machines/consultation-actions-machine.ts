import { assign, fromPromise, setup } from 'xstate';

export type ConsultationActionsEvent =
  | { type: 'payment.open'; consultationId: string }
  | { type: 'payment.close' }
  | { type: 'payment.recorded' }
  | { type: 'cancel.ask'; consultationId: string }
  | { type: 'cancel.dismiss' }
  | { type: 'cancel.confirm' };

type Context = { consultationId: string | null; failure: string | null };

/**
 * The consultations list's row actions, one row at a time: recording a payment on a row's invoice
 * (a form under the row), or cancelling a consultation (asked to confirm first, since its invoice
 * is then credited). `reload` refreshes the list once either is recorded; a refused cancellation
 * stays on the question with the server's message.
 */
export const consultationActionsMachine = setup({
  types: {
    context: {} as Context,
    events: {} as ConsultationActionsEvent,
  },
  actors: {
    cancelConsultation: fromPromise<void, { consultationId: string }>(async () => {}),
  },
  actions: {
    choose: assign({
      consultationId: ({ event }) => ('consultationId' in event ? event.consultationId : null),
      failure: null,
    }),
    clear: assign({ consultationId: null, failure: null }),
    reload: () => {},
  },
}).createMachine({
  id: 'consultationActions',
  initial: 'idle',
  context: { consultationId: null, failure: null },
  on: {
    'payment.open': { target: '.paying', actions: 'choose' },
    'cancel.ask': { target: '.confirmingCancel', actions: 'choose' },
  },
  states: {
    idle: {},
    paying: {
      on: {
        'payment.close': { target: 'idle', actions: 'clear' },
        'payment.recorded': { target: 'idle', actions: ['clear', 'reload'] },
      },
    },
    confirmingCancel: {
      on: {
        'cancel.dismiss': { target: 'idle', actions: 'clear' },
        'cancel.confirm': { target: 'cancelling' },
      },
    },
    cancelling: {
      // A second click or another row's action waits for the answer.
      on: { 'payment.open': {}, 'cancel.ask': {} },
      invoke: {
        src: 'cancelConsultation',
        input: ({ context }) => ({ consultationId: context.consultationId ?? '' }),
        onDone: { target: 'idle', actions: ['clear', 'reload'] },
        onError: {
          target: 'confirmingCancel',
          actions: assign({ failure: ({ event }) => (event.error instanceof Error ? event.error.message : 'Failed') }),
        },
      },
    },
  },
});
