import { LIMITS, linkedToTutor, type Role, type UserEvent } from '@agency/contracts';
import { type Decider, DomainError } from '../shared/decider';
import { checkId, checkText } from '../shared/limits';

export type UserState =
  | { status: 'none' }
  /** `active`: false once an admin turned the login off (it cannot sign in or reset its password). */
  | { status: 'registered'; userId: string; role: Role; tutorId: string | null; active: boolean };

export type UserCommand =
  | { type: 'RegisterUser'; userId: string; username: string; role: Role; tutorId: string | null; name: string }
  | { type: 'ChangeUserRole'; role: Role; tutorId: string | null }
  | { type: 'RecordPasswordChange'; reason: 'set-by-admin' | 'reset' | 'activation' }
  /** `linkId`: where the command service keeps the token until the mail reactor has sent it. */
  | { type: 'RequestPasswordReset'; linkId: string; expiresAt: string }
  /**
   * `otherActiveAdmins`: how many admin logins besides this one are on (counted from their
   * streams, one turning-off at a time: the service serialises them).
   */
  | { type: 'TurnLoginOff'; otherActiveAdmins: number }
  | { type: 'TurnLoginOn' };

export const initialState = (): UserState => ({ status: 'none' });

export function evolve(state: UserState, event: UserEvent): UserState {
  switch (event.type) {
    case 'UserRegistered':
      return {
        status: 'registered',
        userId: event.data.userId,
        role: event.data.role,
        tutorId: event.data.tutorId,
        active: true,
      };
    case 'UserRoleChanged':
      return state.status === 'registered' ? { ...state, role: event.data.role, tutorId: event.data.tutorId } : state;
    case 'LoginTurnedOff':
    case 'LoginTurnedOn':
      return state.status === 'registered' ? { ...state, active: event.type === 'LoginTurnedOn' } : state;
    case 'UserPasswordChanged':
    case 'PasswordResetRequested':
      return state;
    default:
      // An event type this version does not know (written by a newer one): it changes nothing here.
      return state;
  }
}

const LOGIN_OFF = 'This login has been turned off.';

function checkPartnerHasTutor(role: Role, tutorId: string | null) {
  if (linkedToTutor(role) && !tutorId) {
    throw new DomainError('invalid', `A ${role} user must be linked to a tutor.`, { tutorId: 'Tutor is required' });
  }
}

export function decide(command: UserCommand, state: UserState, _now: Date): UserEvent[] {
  switch (command.type) {
    case 'RegisterUser': {
      if (state.status !== 'none') throw new DomainError('conflict', 'This user already exists.');
      checkPartnerHasTutor(command.role, command.tutorId);
      checkId(command.userId, 'id', 'The user id');
      checkText(command.username, {
        field: 'username',
        label: 'Username',
        max: LIMITS.maxUsernameLength,
        required: true,
      });
      checkText(command.name, { field: 'name', label: 'Name', required: true });
      if (command.tutorId !== null) checkId(command.tutorId, 'tutorId', 'The tutor id');
      const { userId, username, role, tutorId, name } = command;
      return [{ type: 'UserRegistered', data: { userId, username, role, tutorId, name } }];
    }
    case 'ChangeUserRole': {
      if (state.status === 'none') throw new DomainError('not_found', 'There is no such user.');
      checkPartnerHasTutor(command.role, command.tutorId);
      if (state.role === command.role && state.tutorId === command.tutorId) return [];
      return [
        { type: 'UserRoleChanged', data: { userId: state.userId, role: command.role, tutorId: command.tutorId } },
      ];
    }
    case 'RecordPasswordChange':
      if (state.status === 'none') throw new DomainError('not_found', 'There is no such user.');
      return [{ type: 'UserPasswordChanged', data: { userId: state.userId, reason: command.reason } }];
    case 'RequestPasswordReset':
      if (state.status === 'none') throw new DomainError('not_found', 'There is no such user.');
      if (!state.active) throw new DomainError('conflict', LOGIN_OFF);
      checkId(command.linkId, 'linkId', 'The link id');
      return [
        {
          type: 'PasswordResetRequested',
          data: { userId: state.userId, linkId: command.linkId, expiresAt: command.expiresAt },
        },
      ];
    case 'TurnLoginOff': {
      if (state.status === 'none') throw new DomainError('not_found', 'There is no such login.');
      if (!state.active) return [];
      if (state.role === 'admin' && command.otherActiveAdmins < 1) {
        throw new DomainError(
          'conflict',
          'This is the only admin login that is on: it cannot be turned off, or nobody could manage the agency.',
        );
      }
      return [{ type: 'LoginTurnedOff', data: { userId: state.userId } }];
    }
    case 'TurnLoginOn':
      if (state.status === 'none') throw new DomainError('not_found', 'There is no such login.');
      return state.active ? [] : [{ type: 'LoginTurnedOn', data: { userId: state.userId } }];
    default: {
      const _never: never = command;
      return _never;
    }
  }
}

export const userDecider: Decider<UserCommand, UserEvent, UserState> = { initialState, evolve, decide };
export const userStream = (userId: string) => `user-${userId}`;
