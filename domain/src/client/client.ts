import type { ChildDetails, ClientEvent, ContactDetails } from '@agency/contracts';
import { type Decider, DomainError } from '../shared/decider';

export type ClientState =
  | { status: 'none' }
  | {
      status: 'registered';
      clientId: string;
      active: boolean;
      contactIds: ReadonlySet<string>;
      childIds: ReadonlySet<string>;
    };

export type ClientCommand =
  | { type: 'RegisterClient'; clientId: string; startDate: string; contact: ContactDetails }
  | { type: 'AddContact'; contact: ContactDetails }
  | { type: 'ChangeContactDetails'; contact: ContactDetails }
  | { type: 'AddChild'; child: ChildDetails }
  | { type: 'ChangeChildDetails'; child: ChildDetails }
  | { type: 'SetClientActive'; active: boolean };

export const initialState = (): ClientState => ({ status: 'none' });

export function evolve(state: ClientState, event: ClientEvent): ClientState {
  if (event.type === 'ClientRegistered') {
    return {
      status: 'registered',
      clientId: event.data.clientId,
      active: true,
      contactIds: new Set([event.data.contact.id]),
      childIds: new Set(),
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
    case 'ContactDetailsChanged':
    case 'ChildDetailsChanged':
      return state;
    default: {
      const _never: never = event;
      return _never;
    }
  }
}

export function decide(command: ClientCommand, state: ClientState, _now: Date): ClientEvent[] {
  if (command.type === 'RegisterClient') {
    if (state.status !== 'none') throw new DomainError('conflict', 'This client already exists.');
    const { clientId, startDate, contact } = command;
    return [{ type: 'ClientRegistered', data: { clientId, startDate, contact } }];
  }
  if (state.status === 'none') throw new DomainError('not_found', 'There is no such client.');
  const { clientId } = state;
  switch (command.type) {
    case 'AddContact':
      if (state.contactIds.has(command.contact.id)) throw new DomainError('conflict', 'This contact already exists.');
      return [{ type: 'ContactAdded', data: { clientId, contact: command.contact } }];
    case 'ChangeContactDetails':
      if (!state.contactIds.has(command.contact.id)) throw new DomainError('not_found', 'There is no such contact.');
      return [{ type: 'ContactDetailsChanged', data: { clientId, contact: command.contact } }];
    case 'AddChild':
      if (state.childIds.has(command.child.id)) throw new DomainError('conflict', 'This child already exists.');
      return [{ type: 'ChildAdded', data: { clientId, child: command.child } }];
    case 'ChangeChildDetails':
      if (!state.childIds.has(command.child.id)) throw new DomainError('not_found', 'There is no such child.');
      return [{ type: 'ChildDetailsChanged', data: { clientId, child: command.child } }];
    case 'SetClientActive':
      if (command.active === state.active) return [];
      return [{ type: command.active ? 'ClientReactivated' : 'ClientDeactivated', data: { clientId } }];
    default: {
      const _never: never = command;
      return _never;
    }
  }
}

export const clientDecider: Decider<ClientCommand, ClientEvent, ClientState> = { initialState, evolve, decide };

export const clientStream = (clientId: string) => `client-${clientId}`;
