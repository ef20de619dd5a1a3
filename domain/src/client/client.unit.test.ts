import type { ClientEvent, ContactDetails } from '@agency/contracts';
import { describe, it } from 'vitest';
import { specFor } from '../testing/given-when-then';
import { clientDecider } from './client';

const given = specFor(clientDecider);
const contact: ContactDetails = {
  id: 'contact-1',
  firstName: 'Ann',
  lastName: 'Lee',
  address: ['1 High St'],
  postcode: 'OX1 1AA',
  email: 'ann@example.com',
  phone: [{ type: 'Home', number: '01865 000000' }],
  dob: null,
};
const child = { id: 'child-1', firstName: 'Tom', lastName: 'Lee', dob: '2015-03-04' };
const registered: ClientEvent = {
  type: 'ClientRegistered',
  data: { clientId: 'c1', startDate: '2026-11-22', contact },
};

describe('client', () => {
  it('registers a new client with its first contact', () => {
    given([])
      .when({ type: 'RegisterClient', clientId: 'c1', startDate: '2026-11-22', contact })
      .thenEvents([registered]);
  });

  it('refuses to register the same client twice', () => {
    given([registered])
      .when({ type: 'RegisterClient', clientId: 'c1', startDate: '2026-11-22', contact })
      .thenRefused('conflict');
  });

  it('refuses changes to a client that does not exist', () => {
    given([]).when({ type: 'AddChild', child }).thenRefused('not_found', 'no such client');
  });

  it('adds a contact and changes its details', () => {
    const second = { ...contact, id: 'contact-2', firstName: 'Bob' };
    given([registered])
      .when({ type: 'AddContact', contact: second })
      .thenEvents([{ type: 'ContactAdded', data: { clientId: 'c1', contact: second } }]);
    given([registered])
      .when({ type: 'ChangeContactDetails', contact: { ...contact, postcode: 'OX2 2BB' } })
      .thenEvents([
        { type: 'ContactDetailsChanged', data: { clientId: 'c1', contact: { ...contact, postcode: 'OX2 2BB' } } },
      ]);
  });

  it('refuses to change a contact the client does not have', () => {
    given([registered])
      .when({ type: 'ChangeContactDetails', contact: { ...contact, id: 'other' } })
      .thenRefused('not_found');
  });

  it('adds a child, then changes it; an unknown child is refused', () => {
    const added: ClientEvent = { type: 'ChildAdded', data: { clientId: 'c1', child } };
    given([registered]).when({ type: 'AddChild', child }).thenEvents([added]);
    given([registered, added])
      .when({ type: 'ChangeChildDetails', child: { ...child, dob: '2015-03-05' } })
      .thenEvents([{ type: 'ChildDetailsChanged', data: { clientId: 'c1', child: { ...child, dob: '2015-03-05' } } }]);
    given([registered]).when({ type: 'ChangeChildDetails', child }).thenRefused('not_found');
  });

  it('deactivates and reactivates; setting the current state again records nothing', () => {
    const deactivated: ClientEvent = { type: 'ClientDeactivated', data: { clientId: 'c1' } };
    given([registered]).when({ type: 'SetClientActive', active: false }).thenEvents([deactivated]);
    given([registered, deactivated])
      .when({ type: 'SetClientActive', active: true })
      .thenEvents([{ type: 'ClientReactivated', data: { clientId: 'c1' } }]);
    given([registered]).when({ type: 'SetClientActive', active: true }).thenEvents([]);
  });
});
