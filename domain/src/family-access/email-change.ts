import type { ClientEvent, ContactDetails, FamilyEmailChangeEvent } from '@agency/contracts';
import { type Decider, DomainError } from '../shared/decider';
import { checkId } from '../shared/limits';

/**
 * A family's request for one of its contacts' e-mail address to change (docs/family-access.md):
 * asked from its login, confirmed or declined by an admin. Until it is confirmed the contact keeps
 * its old address (the one it signs in with).
 */
export type EmailChangeState =
  | { status: 'none' }
  | { status: 'pending'; clientId: string; email: string }
  /** What was decided, with the address it was about: a retry of the decision applies the same address. */
  | { status: 'decided'; clientId: string; email: string; approved: boolean };

export type EmailChangeCommand =
  | { type: 'RequestEmailChange'; contactId: string; clientId: string; email: string }
  | { type: 'DecideEmailChange'; contactId: string; clientId: string; approve: boolean };

export const initialState = (): EmailChangeState => ({ status: 'none' });

export function evolve(state: EmailChangeState, event: FamilyEmailChangeEvent): EmailChangeState {
  switch (event.type) {
    case 'FamilyEmailChangeRequested':
      return { status: 'pending', clientId: event.data.clientId, email: event.data.email };
    case 'FamilyEmailChangeDecided':
      return {
        status: 'decided',
        clientId: event.data.clientId,
        email: event.data.email,
        approved: event.data.approved,
      };
    default:
      return state;
  }
}

export function decide(command: EmailChangeCommand, state: EmailChangeState, _now: Date): FamilyEmailChangeEvent[] {
  const { contactId, clientId } = command;
  checkId(contactId, 'contactId', 'The contact id');
  checkId(clientId, 'clientId', 'The client id');
  switch (command.type) {
    case 'RequestEmailChange':
      // The same address asked again: the request stands as it is.
      if (state.status === 'pending' && state.email === command.email) return [];
      return [{ type: 'FamilyEmailChangeRequested', data: { contactId, clientId, email: command.email } }];
    case 'DecideEmailChange':
      if (state.status !== 'pending')
        throw new DomainError('conflict', 'This contact has no change of e-mail address waiting.');
      return [
        {
          type: 'FamilyEmailChangeDecided',
          data: { contactId, clientId, email: state.email, approved: command.approve },
        },
      ];
    default: {
      const _never: never = command;
      return _never;
    }
  }
}

export const emailChangeDecider: Decider<EmailChangeCommand, FamilyEmailChangeEvent, EmailChangeState> = {
  initialState,
  evolve,
  decide,
};
export const emailChangeStream = (contactId: string) => `family-email-change-${contactId}`;

/**
 * The family's contacts as its own stream holds them now (decrypted as read): a correction by the
 * family changes its phone and address and keeps the rest as it is, never as a read model that
 * may lag has it.
 */
export const contactsOfFamily = {
  initialState: (): Map<string, ContactDetails> => new Map(),
  evolve(contacts: Map<string, ContactDetails>, event: ClientEvent): Map<string, ContactDetails> {
    switch (event.type) {
      case 'ClientRegistered':
      case 'ContactAdded':
      case 'ContactDetailsChanged':
        return new Map(contacts).set(event.data.contact.id, event.data.contact);
      case 'ClientErased':
        return new Map();
      default:
        return contacts;
    }
  },
};
