import { seedAgencyDetails } from '@agency/contracts';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GivenEvent, projectionTestBed } from '../testing/projection-test-bed';
import { accountingExportProjection } from './projection';
import { exportRows } from './queries';

const tutorInvoice = { invoiceId: 'inv-t1', tutorId: 'tutor-1', month: '2026-03' };
const generated = (reference: string): GivenEvent => ({
  streamId: 'invoice-tutor-1-2026-03',
  type: 'InvoiceGenerated',
  data: {
    ...tutorInvoice,
    reference,
    date: '2026-04-01',
    items: [
      { commissionBp: 2500, earningsPence: 43_500, commissionPence: 10_876 },
      { commissionBp: 1000, earningsPence: 10_000, commissionPence: 1_000 },
    ],
    lessonCount: 5,
    earningsPence: 53_500,
    commissionPence: 11_876,
    partnerCommissionPence: 0,
  },
});

describe('the accountant’s export read model', () => {
  let bed: Awaited<ReturnType<typeof projectionTestBed>>;
  let db: pg.Pool;
  beforeAll(async () => {
    bed = await projectionTestBed([accountingExportProjection]);
    db = { query: async (text: string, params: unknown[]) => ({ rows: await bed.rows(text, params) }) } as never;
  });
  afterAll(() => bed.close());
  const period = { from: '2026-03-01', to: '2026-04-30' };

  it('holds a tutor’s invoice once final (never a withdrawn one), its payments, and a discount as a negative line', async () => {
    await bed.given(
      { streamId: 'agency-details', type: 'AgencyDetailsSet', data: { details: seedAgencyDetails } },
      generated('AB00001'),
      {
        streamId: 'invoice-tutor-1-2026-03',
        type: 'InvoiceWithdrawn',
        data: { ...tutorInvoice, reference: 'AB00001' },
      },
      generated('AB00002'),
      { streamId: 'invoice-tutor-1-2026-03', type: 'InvoiceConfirmed', data: tutorInvoice },
      {
        streamId: 'invoice-tutor-1-2026-03',
        type: 'InvoicePaymentRecorded',
        data: { ...tutorInvoice, paymentId: 'pay-t1', date: '2026-04-10', amountPence: 11_876 },
      },
      {
        streamId: 'family-invoice-f1',
        type: 'FamilyInvoiceIssued',
        data: {
          invoiceId: 'f1',
          reference: 'OTA00007',
          date: '2026-03-20',
          dueDate: '2026-04-03',
          clientId: 'client-1',
          billedFor: { kind: 'workshops', id: 'w-1' },
          billing: { name: 'Jo Lee', address: ['1 High Street'], postcode: 'OX1 1AA', email: 'jo@example.com' },
          lines: [{ description: 'Easter workshop: Sam', amountPence: 4_500 }],
          discountPence: 450,
          totalPence: 4_050,
        },
      },
      {
        streamId: 'client-client-1',
        type: 'ClientErased',
        data: { clientId: 'client-1', reason: 'Asked', erasedAt: '2026-05-01T09:00:00.000Z' },
      },
    );
    const sales = await exportRows(db, { ...period, part: 'sales' });
    expect(
      sales.map((row) => [
        row.row_id,
        row.doc_number,
        row.name,
        row.date,
        row.due_date,
        row.description,
        row.amount_pence,
      ]),
    ).toEqual([
      ['f1:1', 'OTA00007', 'Erased', '2026-03-20', '2026-04-03', 'Easter workshop: Sam', 4_500],
      ['f1:2', 'OTA00007', 'Erased', '2026-03-20', '2026-04-03', 'Discount', -450],
      // Due after the agency's 14 days' terms; the tutor is named by the tutors read model (absent here).
      [
        'inv-t1~AB00002:1',
        'AB00002',
        '',
        '2026-04-01',
        '2026-04-15',
        'Commission 2026-03: 25% of earnings of £435.00',
        10_876,
      ],
      [
        'inv-t1~AB00002:2',
        'AB00002',
        '',
        '2026-04-01',
        '2026-04-15',
        'Commission 2026-03: 10% of earnings of £100.00',
        1_000,
      ],
    ]);
    const payments = await exportRows(db, { ...period, part: 'payments' });
    expect(payments.map((row) => [row.row_id, row.doc_number, row.amount_pence])).toEqual([
      ['pay-t1', 'AB00002', 11_876],
    ]);
  });

  it('makes a tutor’s invoice paid before it was confirmed a sale at its payment (it can no longer be withdrawn)', async () => {
    const other = { invoiceId: 'inv-t2', tutorId: 'tutor-2', month: '2026-03' };
    const draft = generated('CD00001');
    await bed.given(
      { ...draft, streamId: 'invoice-tutor-2-2026-03', data: { ...(draft.data as object), ...other } } as GivenEvent,
      {
        streamId: 'invoice-tutor-2-2026-03',
        type: 'InvoicePaymentRecorded',
        data: { ...other, paymentId: 'pay-t2', date: '2026-04-05', amountPence: 5_000 },
      },
      { streamId: 'invoice-tutor-2-2026-03', type: 'InvoiceConfirmed', data: other },
    );
    const sales = await exportRows(db, { ...period, part: 'sales' });
    expect(sales.filter((row) => row.doc_number === 'CD00001').map((row) => row.row_id)).toEqual([
      'inv-t2~CD00001:1',
      'inv-t2~CD00001:2',
    ]);
    const payments = await exportRows(db, { ...period, part: 'payments' });
    expect(payments.map((row) => row.row_id)).toContain('pay-t2');
  });
});
