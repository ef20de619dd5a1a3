import type { FamilyAccessEvent } from '@agency/contracts';
import { type Decider, DomainError } from '../shared/decider';
import { checkId } from '../shared/limits';

/**
 * A family contact's access (docs/family-access.md). A contact with an e-mail address may sign in
 * from the start; an admin turns that off (and on again). Which contact and family the stream is
 * about is checked by the caller on the family's own stream: this one holds only the access.
 */
export type FamilyAccessState = { status: 'on' } | { status: 'off' };

type OfContact = { contactId: string; clientId: string };

export type FamilyAccessCommand =
  | ({ type: 'RequestSignInLink'; linkId: string; expiresAt: string } & OfContact)
  | ({ type: 'RecordSignIn' } & OfContact)
  | ({ type: 'TurnAccessOff' } & OfContact)
  | ({ type: 'TurnAccessOn' } & OfContact);

export const ACCESS_OFF = 'This family login has been turned off. Please contact the office if this is a mistake.';

export const initialState = (): FamilyAccessState => ({ status: 'on' });

export function evolve(state: FamilyAccessState, event: FamilyAccessEvent): FamilyAccessState {
  switch (event.type) {
    case 'FamilyAccessTurnedOff':
      return { status: 'off' };
    case 'FamilyAccessTurnedOn':
      return { status: 'on' };
    default:
      return state;
  }
}

export function decide(command: FamilyAccessCommand, state: FamilyAccessState, _now: Date): FamilyAccessEvent[] {
  const { contactId, clientId } = command;
  checkId(contactId, 'contactId', 'The contact id');
  checkId(clientId, 'clientId', 'The client id');
  switch (command.type) {
    case 'RequestSignInLink':
      if (state.status === 'off') throw new DomainError('forbidden', ACCESS_OFF);
      checkId(command.linkId, 'linkId', 'The link id');
      return [
        {
          type: 'FamilySignInLinkRequested',
          data: { contactId, clientId, linkId: command.linkId, expiresAt: command.expiresAt },
        },
      ];
    case 'RecordSignIn':
      if (state.status === 'off') throw new DomainError('forbidden', ACCESS_OFF);
      return [{ type: 'FamilySignedIn', data: { contactId, clientId } }];
    case 'TurnAccessOff':
      return state.status === 'off' ? [] : [{ type: 'FamilyAccessTurnedOff', data: { contactId, clientId } }];
    case 'TurnAccessOn':
      return state.status === 'on' ? [] : [{ type: 'FamilyAccessTurnedOn', data: { contactId, clientId } }];
    default: {
      const _never: never = command;
      return _never;
    }
  }
}

export { contactsOfFamily, emailChangeDecider, emailChangeStream } from './email-change';
export { erasureRequestDecider, erasureRequestStream } from './erasure-request';

export const familyAccessDecider: Decider<FamilyAccessCommand, FamilyAccessEvent, FamilyAccessState> = {
  initialState,
  evolve,
  decide,
};
export const familyAccessStream = (contactId: string) => `family-access-${contactId}`;
/** A family login's user id: one per contact, apart from every staff login's. */
export const familyUserId = (contactId: string) => `family-${contactId}`;
export const contactOfFamilyUser = (userId: string) =>
  userId.startsWith('family-') ? userId.slice('family-'.length) : undefined;
