import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectionTestBed } from '../testing/projection-test-bed';
import { invoicesProjection } from './projection';

describe('invoices read model', () => {
  let bed: Awaited<ReturnType<typeof projectionTestBed>>;
  beforeAll(async () => {
    bed = await projectionTestBed([invoicesProjection]);
  });
  afterAll(() => bed.close());

  it('holds each invoice with its amounts, whether it is confirmed, and what has been paid', async () => {
    const tutorId = randomUUID();
    const month = '2026-02';
    const invoiceId = `${tutorId}_${month}`;
    const streamId = `invoice-${tutorId}-${month}`;
    const key = { invoiceId, tutorId, month };
    const items = [{ commissionBp: 2500, earningsPence: 3_000_000_000, commissionPence: 750_000_000 }];
    await bed.given(
      {
        streamId,
        type: 'InvoiceGenerated',
        data: {
          ...key,
          reference: 'GH-7',
          date: '2026-03-01',
          items,
          lessonCount: 3,
          earningsPence: 3_000_000_000,
          commissionPence: 750_000_000,
          partnerCommissionPence: 75_000_000,
        },
      },
      { streamId, type: 'InvoiceConfirmed', data: key },
      {
        streamId,
        type: 'InvoicePaymentRecorded',
        data: { ...key, paymentId: 'p-1', date: '2026-03-10', amountPence: 500 },
      },
      {
        streamId,
        type: 'InvoicePaymentRecorded',
        data: { ...key, paymentId: 'p-2', date: '2026-03-11', amountPence: 250 },
      },
    );
    expect(
      await bed.rows(
        `select tutor_id, month, reference, to_char(date, 'YYYY-MM-DD') as date, lesson_count,
                earnings_pence::text as earnings, commission_pence::text as commission,
                partner_commission_pence::text as partner, items, confirmed, paid_pence::int as paid
           from invoices where id = $1`,
        [invoiceId],
      ),
    ).toEqual([
      {
        tutor_id: tutorId,
        month,
        reference: 'GH-7',
        date: '2026-03-01',
        lesson_count: 3,
        earnings: '3000000000',
        commission: '750000000',
        partner: '75000000',
        items,
        confirmed: true,
        paid: 750,
      },
    ]);
    expect(
      await bed.rows(
        `select id, to_char(date, 'YYYY-MM-DD') as date, amount_pence::int as amount
           from invoice_payments where invoice_id = $1 order by id`,
        [invoiceId],
      ),
    ).toEqual([
      { id: 'p-1', date: '2026-03-10', amount: 500 },
      { id: 'p-2', date: '2026-03-11', amount: 250 },
    ]);
  });
});
