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

  it('says which lessons invoice billed which lesson, adjustments too, with its VAT and names', async () => {
    const invoiceId = randomUUID();
    const clientId = randomUUID();
    const lesson = (lessonId: string, kind: 'tuition' | 'adjustment', date: string) => ({
      lessonId,
      kind,
      model: 'agency-sells-tuition' as const,
      date,
      tutorId: 't-1',
      studentId: 'child-1',
      engagementId: 'e-1',
      duration: 100,
      ratePence: 3000,
      vatRateBp: 2000,
    });
    const invoice = issued(invoiceId, clientId, { kind: 'lessons', id: '2026-03' });
    await bed.given({
      ...invoice,
      data: {
        ...invoice.data,
        lines: [
          { description: 'Tuition', amountPence: 3000, vatPence: 600, lesson: lesson('l-1', 'tuition', '2026-03-02') },
          {
            description: 'Adjustment',
            amountPence: -1000,
            vatPence: -200,
            lesson: lesson('l-0', 'adjustment', '2026-02-20'),
          },
        ],
        vatPence: 400,
        totalPence: 2400,
        tutorBilled: [],
        names: [
          { id: 'child-1', name: 'Amy Lee' },
          { id: 't-1', name: 'Tom Tutor' },
        ],
      },
    });
    expect(
      await bed.rows(
        `select lesson_id, client_id, kind, tutor_id, to_char(lesson_date, 'YYYY-MM-DD') as date,
                amount_pence::int as amount, vat_pence::int as vat
           from family_invoice_lessons where invoice_id = $1 order by lesson_date`,
        [invoiceId],
      ),
    ).toEqual([
      {
        lesson_id: 'l-0',
        client_id: clientId,
        kind: 'adjustment',
        tutor_id: 't-1',
        date: '2026-02-20',
        amount: -1000,
        vat: -200,
      },
      {
        lesson_id: 'l-1',
        client_id: clientId,
        kind: 'tuition',
        tutor_id: 't-1',
        date: '2026-03-02',
        amount: 3000,
        vat: 600,
      },
    ]);
    expect(
      (await bed.rows('select vat_pence::int as vat, names from family_invoices where id = $1', [invoiceId]))[0],
    ).toEqual({ vat: 400, names: { 'child-1': 'Amy Lee', 't-1': 'Tom Tutor' } });
    await bed.given({
      streamId: `client-${clientId}`,
      type: 'ClientErased',
      data: { clientId, reason: 'Asked to be forgotten', erasedAt: '2026-04-01T09:00:00.000Z' },
    });
    expect((await bed.rows('select names from family_invoices where id = $1', [invoiceId]))[0]).toEqual({ names: {} });
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
    expect(before.family_invoices).toHaveLength(5);
    await bed.rebuild([familyInvoicesProjection]);
    expect(await bed.snapshot()).toEqual(before);
  });
});
