import { seedAgencyDetails } from '@agency/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectionTestBed } from '../testing/projection-test-bed';
import { agencyProjection } from './projection';

describe('agency read model', () => {
  let bed: Awaited<ReturnType<typeof projectionTestBed>>;
  beforeAll(async () => {
    bed = await projectionTestBed([agencyProjection]);
  });
  afterAll(() => bed.close());

  const details = () => bed.rows('select id, details from agency_details');

  it('holds one row, the details of the last save', async () => {
    await bed.given({ streamId: 'agency-details', type: 'AgencyDetailsSet', data: { details: seedAgencyDetails } });
    expect(await details()).toEqual([{ id: 1, details: seedAgencyDetails }]);

    const saved = {
      ...seedAgencyDetails,
      name: 'Turl Street Tutors',
      address: ['1 Broad Street'],
      paymentTermsDays: 30,
    };
    await bed.given({ streamId: 'agency-details', type: 'AgencyDetailsSet', data: { details: saved } });
    expect(await details()).toEqual([{ id: 1, details: saved }]);
  });
});
