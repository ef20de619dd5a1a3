import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectionTestBed } from '../testing/projection-test-bed';
import { tutorsProjection } from './projection';

describe('tutors read model', () => {
  let bed: Awaited<ReturnType<typeof projectionTestBed>>;
  beforeAll(async () => {
    bed = await projectionTestBed([tutorsProjection]);
  });
  afterAll(() => bed.close());

  it('holds each tutor with their contact, spell, activation and login', async () => {
    const tutorId = randomUUID();
    const streamId = `tutor-${tutorId}`;
    const contact = {
      id: randomUUID(),
      firstName: 'Grace',
      lastName: 'Hopper',
      address: ['2 Compiler Way'],
      postcode: 'E1 1AA',
      email: 'grace@example.com',
      phone: [{ type: 'home', number: '020 7946 0000' }],
      dob: null,
    };
    await bed.given(
      {
        streamId,
        type: 'TutorRegistered',
        data: { tutorId, contact, username: 'grace', invoicePrefix: 'GH', startDate: '2025-09-01' },
      },
      { streamId, type: 'TutorDetailsChanged', data: { tutorId, contact: { ...contact, postcode: 'E2 2BB' } } },
      {
        streamId,
        type: 'TutorActivationEmailSent',
        data: { tutorId, sentTo: 'grace@example.com', expiresAt: '2025-09-03T10:00:00.000Z', linkId: null },
      },
      { streamId, type: 'TutorAccountActivated', data: { tutorId, userId: 'u-grace', username: 'grace' } },
      { streamId, type: 'TutorEngagementStarted', data: { tutorId, engagementId: 'e-1', studentId: 's-1' } },
      { streamId, type: 'TutorTerminated', data: { tutorId, endDate: '2026-02-28' } },
    );
    const columns = `contact_id, first_name, postcode, username, invoice_prefix, to_char(start_date, 'YYYY-MM-DD') as start_date,
      to_char(end_date, 'YYYY-MM-DD') as end_date, active, user_id, activation_sent_to,
      activation_expires_at = '2025-09-03T10:00:00Z'::timestamptz as expiry_kept`;
    expect(await bed.rows(`select ${columns} from tutors where id = $1`, [tutorId])).toEqual([
      {
        contact_id: contact.id,
        first_name: 'Grace',
        postcode: 'E2 2BB',
        username: 'grace',
        invoice_prefix: 'GH',
        start_date: '2025-09-01',
        end_date: '2026-02-28',
        active: false,
        user_id: 'u-grace',
        activation_sent_to: 'grace@example.com',
        expiry_kept: true,
      },
    ]);

    await bed.given({ streamId, type: 'TutorReactivated', data: { tutorId, startDate: '2026-04-01' } });
    expect(
      await bed.rows(
        `select active, to_char(start_date, 'YYYY-MM-DD') as start_date, end_date from tutors where id = $1`,
        [tutorId],
      ),
    ).toEqual([{ active: true, start_date: '2026-04-01', end_date: null }]);
  });
});
