import type { ChildDetails, ClientEvent, ContactDetails } from '@agency/contracts';
import { type Decider, DomainError } from '../shared/decider';
import { checkContact, checkDate, checkId, checkText } from '../shared/limits';

export type ClientState =
  | { status: 'none' }
  | {
      status: 'registered';
      clientId: string;
      active: boolean;
      contactIds: ReadonlySet<string>;
      childIds: ReadonlySet<string>;
      /** The family's personal data was erased: nothing can be recorded for it any more. */
      erased: boolean;
    };

export type ClientCommand =
  | { type: 'RegisterClient'; clientId: string; startDate: string; contact: ContactDetails }
  | { type: 'AddContact'; contact: ContactDetails }
  | { type: 'ChangeContactDetails'; contact: ContactDetails }
  | { type: 'AddChild'; child: ChildDetails }
  | { type: 'ChangeChildDetails'; child: ChildDetails }
  | { type: 'SetClientActive'; active: boolean }
  /**
   * Erase the family's personal data (its key is destroyed by the caller). A family with an
   * ongoing engagement is refused before this is decided: lessons are still being recorded.
   */
  | { type: 'EraseClient'; reason: string; erasedAt: string };

export const initialState = (): ClientState => ({ status: 'none' });

export function evolve(state: ClientState, event: ClientEvent): ClientState {
  if (event.type === 'ClientRegistered') {
    return {
      status: 'registered',
      clientId: event.data.clientId,
      active: true,
      contactIds: new Set([event.data.contact.id]),
      childIds: new Set(),
      erased: false,
    };
  }
  if (state.status !== 'registered') return state;
  switch (event.type) {
    case 'ContactAdded':
      return { ...state, contactIds: new Set([...state.contactIds, event.data.contact.id]) };
    case 'ChildAdded':
      return { ...state, childIds: new Set([...state.childIds, event.data.child.id]) };
    case 'ClientDeactivated':
      return { ...state, active: false };
    case 'ClientReactivated':
      return { ...state, active: true };
    case 'ClientErased':
      return { ...state, active: false, erased: true };
    case 'ContactDetailsChanged':
    case 'ChildDetailsChanged':
      return state;
    default:
      // An event type this version does not know (written by a newer one): it changes nothing here.
      return state;
  }
}

/** A child's fields, bounded as the child form bounds them. */
function checkChild(child: ChildDetails) {
  checkId(child.id, 'id', 'The child id');
  checkText(child.firstName, { field: 'firstName', label: 'First name' });
  checkText(child.lastName, { field: 'lastName', label: 'Last name' });
  checkDate(child.dob, 'dob');
}

export function decide(command: ClientCommand, state: ClientState, _now: Date): ClientEvent[] {
  if (command.type === 'RegisterClient') {
    if (state.status !== 'none') throw new DomainError('conflict', 'This client already exists.');
    checkId(command.clientId, 'id', 'The client id');
    checkDate(command.startDate, 'startDate');
    checkContact(command.contact);
    const { clientId, startDate, contact } = command;
    return [{ type: 'ClientRegistered', data: { clientId, startDate, contact } }];
  }
  if (state.status === 'none') throw new DomainError('not_found', 'There is no such client.');
  const { clientId } = state;
  if (state.erased) throw new DomainError('conflict', "This family's personal data was erased.");
  switch (command.type) {
    case 'AddContact':
      checkContact(command.contact);
      if (state.contactIds.has(command.contact.id)) throw new DomainError('conflict', 'This contact already exists.');
      return [{ type: 'ContactAdded', data: { clientId, contact: command.contact } }];
    case 'ChangeContactDetails':
      checkContact(command.contact);
      if (!state.contactIds.has(command.contact.id)) throw new DomainError('not_found', 'There is no such contact.');
      return [{ type: 'ContactDetailsChanged', data: { clientId, contact: command.contact } }];
    case 'AddChild':
      checkChild(command.child);
      if (state.childIds.has(command.child.id)) throw new DomainError('conflict', 'This child already exists.');
      return [{ type: 'ChildAdded', data: { clientId, child: command.child } }];
    case 'ChangeChildDetails':
      checkChild(command.child);
      if (!state.childIds.has(command.child.id)) throw new DomainError('not_found', 'There is no such child.');
      return [{ type: 'ChildDetailsChanged', data: { clientId, child: command.child } }];
    case 'SetClientActive':
      if (command.active === state.active) return [];
      return [{ type: command.active ? 'ClientReactivated' : 'ClientDeactivated', data: { clientId } }];
    case 'EraseClient':
      checkText(command.reason, { field: 'reason', label: 'Reason', required: true });
      return [{ type: 'ClientErased', data: { clientId, reason: command.reason, erasedAt: command.erasedAt } }];
    default: {
      const _never: never = command;
      return _never;
    }
  }
}

export const clientDecider: Decider<ClientCommand, ClientEvent, ClientState> = { initialState, evolve, decide };

export const clientStream = (clientId: string) => `client-${clientId}`;
