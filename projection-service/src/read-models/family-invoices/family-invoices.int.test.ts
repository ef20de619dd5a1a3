import { randomUUID } from 'node:crypto';
import { type BilledFor, ERASED } from '@agency/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GivenEvent, projectionTestBed } from '../testing/projection-test-bed';
import { familyInvoicesProjection } from './projection';

const stream = (invoiceId: string) => `family-invoice-${invoiceId}`;
const billing = { name: 'Jo Lee', address: ['1 High Street', 'Oxford'], postcode: 'OX1 1AA', email: 'jo@example.com' };

let references = 0;
function issued(invoiceId: string, clientId: string, billedFor: BilledFor = { kind: 'consultation', id: 'c-1' }) {
  references += 1;
  return {
    streamId: stream(invoiceId),
    type: 'FamilyInvoiceIssued',
    data: {
      invoiceId,
      reference: `FI-${1000 + references}`,
      date: '2026-03-10',
      dueDate: '2026-03-24',
      clientId,
      billedFor,
      billing,
      lines: [{ description: 'Consultation', amountPence: 7500 }],
      totalPence: 7500,
    },
  } satisfies GivenEvent;
}

describe('family invoices read model', () => {
  let bed: Awaited<ReturnType<typeof projectionTestBed>>;
  beforeAll(async () => {
    bed = await projectionTestBed([familyInvoicesProjection]);
  });
  afterAll(() => bed.close());

  const invoiceRow = async (id: string) =>
    (
      await bed.rows(
        `select reference, to_char(date, 'YYYY-MM-DD') as date, to_char(due_date, 'YYYY-MM-DD') as due_date,
                client_id, billed_kind, billed_id, billing, lines, total_pence::int as total, paid_pence::int as paid,
                credit_note_id, credit_note_reference, to_char(credit_note_date, 'YYYY-MM-DD') as credit_note_date,
                credit_reason
           from family_invoices where id = $1`,
        [id],
      )
    )[0];

  it('holds each invoice as issued, what has been paid on it and the credit note that cancelled it', async () => {
    const invoiceId = randomUUID();
    const invoice = issued(invoiceId, 'client-1');
    await bed.given(invoice, {
      streamId: 'family-invoice-sequence',
      type: 'FamilyInvoiceNumberTaken',
      data: { number: 1001, documentId: invoiceId },
    });
    expect(await invoiceRow(invoiceId)).toEqual({
      reference: invoice.data.reference,
      date: '2026-03-10',
      due_date: '2026-03-24',
      client_id: 'client-1',
      billed_kind: 'consultation',
      billed_id: 'c-1',
      billing,
      lines: [{ description: 'Consultation', amountPence: 7500 }],
      total: 7500,
      paid: 0,
      credit_note_id: null,
      credit_note_reference: null,
      credit_note_date: null,
      credit_reason: null,
    });

    const payment = (paymentId: string, date: string, amountPence: number): GivenEvent => ({
      streamId: stream(invoiceId),
      type: 'FamilyInvoicePaymentRecorded',
      data: { invoiceId, paymentId, date, amountPence },
    });
    await bed.given(payment('pay-1', '2026-03-15', 2500), payment('pay-2', '2026-03-20', 1000));
    expect(await invoiceRow(invoiceId)).toMatchObject({ paid: 3500 });
    expect(
      await bed.rows(
        `select id, to_char(date, 'YYYY-MM-DD') as date, amount_pence::int as amount
           from family_payments where invoice_id = $1 order by date`,
        [invoiceId],
      ),
    ).toEqual([
      { id: 'pay-1', date: '2026-03-15', amount: 2500 },
      { id: 'pay-2', date: '2026-03-20', amount: 1000 },
    ]);

    await bed.given({
      streamId: stream(invoiceId),
      type: 'FamilyCreditNoteIssued',
      data: {
        invoiceId,
        creditNoteId: 'credit-1',
        reference: 'FI-CN-1',
        date: '2026-03-21',
        reason: 'cancelled',
        lines: invoice.data.lines,
        totalPence: 7500,
      },
    });
    // The invoice as issued is not changed by its credit note: the note is beside it.
    expect(await invoiceRow(invoiceId)).toMatchObject({
      total: 7500,
      paid: 3500,
      lines: invoice.data.lines,
      credit_note_id: 'credit-1',
      credit_note_reference: 'FI-CN-1',
      credit_note_date: '2026-03-21',
      credit_reason: 'cancelled',
    });
  });

  it("blanks the billing details of an erased family's invoices, and of an erased booking of no family", async () => {
    const [family, other, booking] = [randomUUID(), randomUUID(), randomUUID()];
    const registrationId = randomUUID();
    await bed.given(
      issued(family, 'client-erased'),
      issued(other, 'client-kept'),
      issued(booking, `registration:${registrationId}`, { kind: 'workshops', id: 'workshop-invoice-1' }),
      {
        streamId: 'client-client-erased',
        type: 'ClientErased',
        data: { clientId: 'client-erased', reason: 'Asked to be forgotten', erasedAt: '2026-04-01T09:00:00.000Z' },
      },
      {
        streamId: 'workshop-event-e-1',
        type: 'WorkshopRegistrationErased',
        data: { eventId: 'e-1', registrationId, reason: 'Asked', erasedAt: '2026-04-01T09:00:00.000Z' },
      },
    );
    const erased = { name: ERASED, address: [ERASED], postcode: ERASED, email: ERASED };
    expect(await invoiceRow(family)).toMatchObject({ billing: erased, total: 7500 });
    expect(await invoiceRow(booking)).toMatchObject({ billing: erased, billed_kind: 'workshops' });
    expect(await invoiceRow(other)).toMatchObject({ billing });
  });

  it('comes out the same when rebuilt from the events', async () => {
    const before = await bed.snapshot();
    expect(before.family_invoices).toHaveLength(4);
    await bed.rebuild([familyInvoicesProjection]);
    expect(await bed.snapshot()).toEqual(before);
  });
});
