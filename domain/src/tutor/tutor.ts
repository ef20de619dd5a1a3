import type { ContactDetails, TutorEvent } from '@agency/contracts';
import { type Decider, DomainError } from '../shared/decider';
import { type TutorAccount, type TutorAction, type TutorLifecycleView, tutorActionAllowed } from './tutor-lifecycle';

type AccountState =
  | { status: 'notActivated' }
  | { status: 'activationSent'; expiresAt: string }
  | { status: 'activated'; userId: string };

type TutorDetails = {
  tutorId: string;
  username: string;
  invoicePrefix: string;
  contactId: string;
  startDate: string;
  endDate: string | null;
  account: AccountState;
};

export type TutorState = { status: 'none' } | ({ status: 'active' | 'inactive' } & TutorDetails);

export type TutorCommand =
  | {
      type: 'RegisterTutor';
      tutorId: string;
      startDate: string;
      username: string;
      invoicePrefix: string;
      contact: ContactDetails;
    }
  | { type: 'ChangeTutorDetails'; contact: Omit<ContactDetails, 'id'> }
  /** `currentStudents` is looked up by the caller: a tutor who still teaches cannot be terminated. */
  | { type: 'TerminateTutor'; endDate: string; currentStudents: number }
  | { type: 'ReactivateTutor'; startDate: string }
  | { type: 'RecordActivationEmailSent'; sentTo: string; expiresAt: string }
  | { type: 'ActivateTutorAccount'; userId: string; username: string };

export const initialState = (): TutorState => ({ status: 'none' });

export function evolve(state: TutorState, event: TutorEvent): TutorState {
  if (event.type === 'TutorRegistered') {
    const { tutorId, username, invoicePrefix, startDate, contact } = event.data;
    return {
      status: 'active',
      tutorId,
      username,
      invoicePrefix,
      contactId: contact.id,
      startDate,
      endDate: null,
      account: { status: 'notActivated' },
    };
  }
  if (state.status === 'none') return state;
  switch (event.type) {
    case 'TutorDetailsChanged':
      return state;
    case 'TutorTerminated':
      return { ...state, status: 'inactive', endDate: event.data.endDate };
    case 'TutorReactivated':
      return { ...state, status: 'active', startDate: event.data.startDate, endDate: null };
    case 'TutorActivationEmailSent':
      return { ...state, account: { status: 'activationSent', expiresAt: event.data.expiresAt } };
    case 'TutorAccountActivated':
      return { ...state, account: { status: 'activated', userId: event.data.userId } };
    default: {
      const _never: never = event;
      return _never;
    }
  }
}

/** The account as the lifecycle sees it: an expired activation code counts as never sent. */
export function accountOf(state: TutorState, now: Date): TutorAccount {
  if (state.status === 'none') return 'notActivated';
  const { account } = state;
  if (account.status === 'activationSent' && Date.parse(account.expiresAt) <= now.getTime()) return 'notActivated';
  return account.status;
}

export const lifecycleViewOf = (state: TutorState, now: Date, currentStudents = 0): TutorLifecycleView => ({
  active: state.status === 'active',
  account: accountOf(state, now),
  currentStudents,
});

const REFUSALS: Record<TutorAction, (view: TutorLifecycleView) => string> = {
  terminate: (view) =>
    view.active
      ? `This tutor still has ${view.currentStudents} current student${view.currentStudents === 1 ? '' : 's'}. End their engagements before terminating the tutor.`
      : 'This tutor is already inactive.',
  reactivate: () => 'This tutor is already active.',
  sendActivation: (view) =>
    !view.active
      ? 'An activation email can only be sent to an active tutor.'
      : view.account === 'activated'
        ? "This tutor's account is already activated."
        : 'An activation email has already been sent and has not expired yet.',
  grantPartner: () => 'This tutor has no activated account yet.',
};

/** Throws the reason in words when the lifecycle does not allow `action` now. */
export function requireAllowed(view: TutorLifecycleView, action: TutorAction) {
  if (!tutorActionAllowed(view, action)) throw new DomainError('conflict', REFUSALS[action](view));
}

export function decide(command: TutorCommand, state: TutorState, now: Date): TutorEvent[] {
  if (command.type === 'RegisterTutor') {
    if (state.status !== 'none') throw new DomainError('conflict', 'This tutor already exists.');
    const { tutorId, startDate, username, invoicePrefix, contact } = command;
    return [{ type: 'TutorRegistered', data: { tutorId, startDate, username, invoicePrefix, contact } }];
  }
  if (state.status === 'none') throw new DomainError('not_found', 'There is no such tutor.');
  const { tutorId } = state;
  switch (command.type) {
    case 'ChangeTutorDetails':
      return [{ type: 'TutorDetailsChanged', data: { tutorId, contact: { ...command.contact, id: state.contactId } } }];
    case 'TerminateTutor':
      requireAllowed(lifecycleViewOf(state, now, command.currentStudents), 'terminate');
      if (command.endDate < state.startDate) {
        throw new DomainError('invalid', 'The end date cannot be before the start date.', {
          endDate: 'The end date cannot be before the start date',
        });
      }
      return [{ type: 'TutorTerminated', data: { tutorId, endDate: command.endDate } }];
    case 'ReactivateTutor':
      requireAllowed(lifecycleViewOf(state, now), 'reactivate');
      if (state.endDate && command.startDate < state.endDate) {
        throw new DomainError('invalid', 'The new start date cannot be before the end date.', {
          startDate: 'The new start date cannot be before the end date',
        });
      }
      return [{ type: 'TutorReactivated', data: { tutorId, startDate: command.startDate } }];
    case 'RecordActivationEmailSent':
      requireAllowed(lifecycleViewOf(state, now), 'sendActivation');
      return [
        { type: 'TutorActivationEmailSent', data: { tutorId, sentTo: command.sentTo, expiresAt: command.expiresAt } },
      ];
    case 'ActivateTutorAccount': {
      if (state.status !== 'active') throw new DomainError('conflict', 'This tutor is no longer active.');
      if (state.account.status === 'activated') {
        throw new DomainError('conflict', 'This account is already activated. Please log in.');
      }
      if (command.username.toLowerCase() !== state.username.toLowerCase()) {
        throw new DomainError('invalid', 'Please enter the username given in your activation email.', {
          username: 'Please enter the username given in your activation email',
        });
      }
      return [{ type: 'TutorAccountActivated', data: { tutorId, userId: command.userId, username: state.username } }];
    }
    default: {
      const _never: never = command;
      return _never;
    }
  }
}

export const tutorDecider: Decider<TutorCommand, TutorEvent, TutorState> = { initialState, evolve, decide };

export const tutorStream = (tutorId: string) => `tutor-${tutorId}`;

export {
  type LifecycleCase,
  lifecycleCases,
  type TutorAccount,
  type TutorAction,
  tutorActionAllowed,
} from './tutor-lifecycle';
export { suggestTutorNames, type TakenNames } from './tutor-names';
