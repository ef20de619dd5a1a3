import { type AgencyEvent, seedAgencyDetails } from '@agency/contracts';
import { describe, expect, it } from 'vitest';
import { fold } from '../shared/decider';
import { specFor } from '../testing/given-when-then';
import { agencyDecider, detailsOf } from './agency';

const given = specFor(agencyDecider);
const seeded: AgencyEvent = { type: 'AgencyDetailsSet', data: { details: seedAgencyDetails } };
const edited = { ...seedAgencyDetails, bankName: 'Other Bank', familyInvoicePrefix: 'FAM' };

describe('the agency’s details', () => {
  it('are seeded once, on the first start', () => {
    given([]).when({ type: 'SeedAgencyDetails' }).thenEvents([seeded]);
    given([seeded]).when({ type: 'SeedAgencyDetails' }).thenEvents([]);
    expect(detailsOf(fold(agencyDecider, []))).toEqual(seedAgencyDetails);
  });

  it('are set as a whole by an admin; the same details again change nothing', () => {
    given([seeded])
      .when({ type: 'SetAgencyDetails', details: edited, actor: { role: 'admin' } })
      .thenEvents([{ type: 'AgencyDetailsSet', data: { details: edited } }]);
    given([seeded])
      .when({ type: 'SetAgencyDetails', details: seedAgencyDetails, actor: { role: 'admin' } })
      .thenEvents([]);
  });

  it('are not for partners or tutors', () => {
    given([seeded])
      .when({ type: 'SetAgencyDetails', details: edited, actor: { role: 'partner' } })
      .thenRefused('forbidden');
  });

  it('refuse a bad sort code, account number, prefix, terms, amount or e-mail', () => {
    for (const bad of [
      { sortCode: '12345' },
      { accountNumber: '1234' },
      { familyInvoicePrefix: 'A B' },
      { familyInvoicePrefix: 'TOOLONGPREFIX' },
      { paymentTermsDays: 400 },
      { defaultConsultationPence: 10_000_001 },
      { email: 'a@b, c@d' },
      { name: ' ' },
    ]) {
      given([seeded])
        .when({ type: 'SetAgencyDetails', details: { ...seedAgencyDetails, ...bad }, actor: { role: 'admin' } })
        .thenRefused('invalid');
    }
  });
});
