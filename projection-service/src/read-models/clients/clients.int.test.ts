import { randomUUID } from 'node:crypto';
import type { ContactDetails } from '@agency/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectionTestBed } from '../testing/projection-test-bed';
import { clientsProjection } from './projection';

const contact = (firstName: string): ContactDetails => ({
  id: randomUUID(),
  firstName,
  lastName: 'Lovelace',
  address: ['1 Analytical Row', 'London'],
  postcode: 'N1 1AA',
  email: `${firstName.toLowerCase()}@example.com`,
  phone: [{ type: 'mobile', number: '07700 900000' }],
  dob: null,
});

describe('clients read model', () => {
  let bed: Awaited<ReturnType<typeof projectionTestBed>>;
  beforeAll(async () => {
    bed = await projectionTestBed([clientsProjection]);
  });
  afterAll(() => bed.close());

  it('holds each family with its contacts in order, its children, and whether it is active', async () => {
    const clientId = randomUUID();
    const streamId = `client-${clientId}`;
    const first = contact('Ada');
    const second = contact('Byron');
    const childId = randomUUID();
    await bed.given(
      { streamId, type: 'ClientRegistered', data: { clientId, startDate: '2026-01-05', contact: first } },
      { streamId, type: 'ContactAdded', data: { clientId, contact: second } },
      { streamId, type: 'ContactDetailsChanged', data: { clientId, contact: { ...first, email: 'ada@new.example' } } },
      {
        streamId,
        type: 'ChildAdded',
        data: { clientId, child: { id: childId, firstName: 'Ann', lastName: 'Lovelace', dob: '2015-04-01' } },
      },
      {
        streamId,
        type: 'ChildDetailsChanged',
        data: { clientId, child: { id: childId, firstName: 'Annabella', lastName: 'Lovelace', dob: '2015-04-02' } },
      },
      { streamId, type: 'ClientDeactivated', data: { clientId } },
    );
    expect(
      await bed.rows(`select id, to_char(start_date, 'YYYY-MM-DD') as start_date, active from clients where id = $1`, [
        clientId,
      ]),
    ).toEqual([{ id: clientId, start_date: '2026-01-05', active: false }]);
    expect(
      await bed.rows(
        'select id, seq, first_name, address, postcode, email, phone from contacts where client_id = $1 order by seq',
        [clientId],
      ),
    ).toEqual([
      {
        id: first.id,
        seq: 0,
        first_name: 'Ada',
        address: first.address,
        postcode: 'N1 1AA',
        email: 'ada@new.example',
        phone: first.phone,
      },
      {
        id: second.id,
        seq: 1,
        first_name: 'Byron',
        address: second.address,
        postcode: 'N1 1AA',
        email: 'byron@example.com',
        phone: second.phone,
      },
    ]);
    expect(
      await bed.rows(`select id, first_name, to_char(dob, 'YYYY-MM-DD') as dob from children where client_id = $1`, [
        clientId,
      ]),
    ).toEqual([{ id: childId, first_name: 'Annabella', dob: '2015-04-02' }]);

    await bed.given({ streamId, type: 'ClientReactivated', data: { clientId } });
    expect(await bed.rows('select active from clients where id = $1', [clientId])).toEqual([{ active: true }]);
  });
});
