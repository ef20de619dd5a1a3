import { randomUUID } from 'node:crypto';
import type { ConsultationDetails } from '@agency/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GivenEvent, projectionTestBed } from '../testing/projection-test-bed';
import { consultationsProjection } from './projection';

const stream = (consultationId: string) => `consultation-${consultationId}`;

const recorded = (details: ConsultationDetails): GivenEvent => ({
  streamId: stream(details.consultationId),
  type: 'ConsultationRecorded',
  data: details,
});

describe('consultations read model', () => {
  let bed: Awaited<ReturnType<typeof projectionTestBed>>;
  beforeAll(async () => {
    bed = await projectionTestBed([consultationsProjection]);
  });
  afterAll(() => bed.close());

  const rowOf = async (id: string) =>
    (
      await bed.rows(
        `select client_id, child_id, to_char(date, 'YYYY-MM-DD') as date, amount_pence::int as amount, assessment,
                invoice_id, cancelled
           from consultations where id = $1`,
        [id],
      )
    )[0];

  it('holds each consultation as recorded, then as changed, with the invoice that bills it now', async () => {
    const consultationId = randomUUID();
    const first: ConsultationDetails = {
      consultationId,
      clientId: 'client-1',
      childId: 'child-1',
      date: '2026-03-10',
      amountPence: 7500,
      assessment: null,
      invoiceId: 'invoice-1',
    };
    await bed.given(recorded(first));
    expect(await rowOf(consultationId)).toEqual({
      client_id: 'client-1',
      child_id: 'child-1',
      date: '2026-03-10',
      amount: 7500,
      assessment: null,
      invoice_id: 'invoice-1',
      cancelled: false,
    });

    await bed.given({
      streamId: stream(consultationId),
      type: 'ConsultationChanged',
      data: {
        ...first,
        childId: 'child-2',
        date: '2026-03-12',
        amountPence: 9000,
        assessment: { subjects: ['Maths', 'Physics'], tutorId: 'tutor-1' },
        invoiceId: 'invoice-2',
      },
    });
    expect(await rowOf(consultationId)).toEqual({
      client_id: 'client-1',
      child_id: 'child-2',
      date: '2026-03-12',
      amount: 9000,
      assessment: { subjects: ['Maths', 'Physics'], tutorId: 'tutor-1' },
      invoice_id: 'invoice-2',
      cancelled: false,
    });
  });

  it('keeps a cancelled consultation, marked cancelled, and leaves the others as they were', async () => {
    const [cancelled, kept] = [randomUUID(), randomUUID()];
    const details = (consultationId: string): ConsultationDetails => ({
      consultationId,
      clientId: 'client-3',
      childId: 'child-3',
      date: '2026-04-01',
      amountPence: 5000,
      assessment: null,
      invoiceId: `invoice-${consultationId}`,
    });
    await bed.given(recorded(details(cancelled)), recorded(details(kept)), {
      streamId: stream(cancelled),
      type: 'ConsultationCancelled',
      data: { consultationId: cancelled },
    });
    expect(await rowOf(cancelled)).toMatchObject({ cancelled: true, amount: 5000, invoice_id: `invoice-${cancelled}` });
    expect(await rowOf(kept)).toMatchObject({ cancelled: false });
  });

  it('comes out the same when rebuilt from the events', async () => {
    const before = await bed.snapshot();
    expect(before.consultations).toHaveLength(3);
    await bed.rebuild([consultationsProjection]);
    expect(await bed.snapshot()).toEqual(before);
  });
});
