import type { FamilyErasureRequestEvent } from '@agency/contracts';
import { type Decider, DomainError } from '../shared/decider';
import { checkId } from '../shared/limits';

/**
 * A family's own request to be erased (docs/family-access.md): asked from its login, decided by
 * an admin. One open request at a time; once decided, the family may ask again.
 */
export type ErasureRequestState =
  | { status: 'none' }
  | { status: 'pending'; contactId: string }
  | { status: 'approved' | 'declined' };

export type ErasureRequestCommand =
  | { type: 'RequestErasure'; clientId: string; contactId: string }
  | { type: 'DecideErasure'; clientId: string; approve: boolean };

export const initialState = (): ErasureRequestState => ({ status: 'none' });

export function evolve(state: ErasureRequestState, event: FamilyErasureRequestEvent): ErasureRequestState {
  switch (event.type) {
    case 'FamilyErasureRequested':
      return { status: 'pending', contactId: event.data.contactId };
    case 'FamilyErasureRequestDecided':
      return { status: event.data.approved ? 'approved' : 'declined' };
    default:
      return state;
  }
}

export function decide(command: ErasureRequestCommand, state: ErasureRequestState, _now: Date) {
  checkId(command.clientId, 'clientId', 'The client id');
  switch (command.type) {
    case 'RequestErasure':
      checkId(command.contactId, 'contactId', 'The contact id');
      // Asked twice before a decision: the first request stands.
      if (state.status === 'pending') return [];
      return [
        {
          type: 'FamilyErasureRequested',
          data: { clientId: command.clientId, contactId: command.contactId },
        },
      ] satisfies FamilyErasureRequestEvent[];
    case 'DecideErasure':
      if (state.status !== 'pending')
        throw new DomainError('conflict', 'This family has no request for erasure waiting.');
      return [
        { type: 'FamilyErasureRequestDecided', data: { clientId: command.clientId, approved: command.approve } },
      ] satisfies FamilyErasureRequestEvent[];
    default: {
      const _never: never = command;
      return _never;
    }
  }
}

export const erasureRequestDecider: Decider<ErasureRequestCommand, FamilyErasureRequestEvent, ErasureRequestState> = {
  initialState,
  evolve,
  decide,
};
export const erasureRequestStream = (clientId: string) => `family-erasure-request-${clientId}`;
