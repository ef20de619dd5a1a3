import type { InvoiceEvent, LessonDetails } from '@agency/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fold } from '../shared/decider';
import { commissionOf, partnerCommissionOf } from '../shared/money';
import { specFor } from '../testing/given-when-then';
import type { Actor } from '../timesheet/timesheet';
import { type InvoiceCommand, invoiceDecider, invoiceReference, invoiceSummary, itemDescription } from './invoice';

const given = specFor(invoiceDecider);
const admin: Actor = { role: 'admin' };
const tutor: Actor = { role: 'tutor', tutorId: 't1' };
const key = { invoiceId: 'i1', tutorId: 't1', month: '2026-03' };

const lessonAt = (lessonId: string, date: string, amountPence: number, commissionBp: number): LessonDetails => {
  const commissionPence = commissionOf(amountPence, commissionBp);
  return {
    lessonId,
    engagementId: 'e1',
    studentId: 's1',
    date,
    duration: 100,
    ratePence: amountPence,
    amountPence,
    amountEdited: false,
    commissionBp,
    commissionPence,
    partnerBp: 1000,
    partnerCommissionPence: partnerCommissionOf(commissionPence, 1000),
  };
};
const lessons = [
  lessonAt('l1', '2026-03-02', 4000, 2500),
  lessonAt('l2', '2026-03-09', 4000, 2500),
  lessonAt('l3', '2026-03-16', 4500, 2000),
];

const generate = (over: Partial<Extract<InvoiceCommand, { type: 'GenerateInvoice' }>> = {}): InvoiceCommand => ({
  type: 'GenerateInvoice',
  ...key,
  invoicePrefix: 'JS',
  number: 12,
  date: '2026-04-01',
  lessons,
  actor: tutor,
  ...over,
});

const generated: InvoiceEvent = {
  type: 'InvoiceGenerated',
  data: {
    ...key,
    reference: 'JS0012',
    date: '2026-04-01',
    items: [
      { commissionBp: 2000, earningsPence: 4500, commissionPence: 900 },
      { commissionBp: 2500, earningsPence: 8000, commissionPence: 2000 },
    ],
    lessonCount: 3,
    earningsPence: 12500,
    commissionPence: 2900,
    partnerCommissionPence: 290,
  },
};
const confirmed: InvoiceEvent = { type: 'InvoiceConfirmed', data: key };

describe('generating an invoice', () => {
  it('groups the month’s earnings by commission rate, with total commission and partner share', () => {
    given([]).when(generate()).thenEvents([generated]);
  });

  it('describes each item as the spec does', () => {
    expect(itemDescription({ commissionBp: 2500, earningsPence: 123450, commissionPence: 30863 })).toBe(
      'Earnings of £1,234.50 at 25% commission',
    );
    expect(itemDescription({ commissionBp: 1250, earningsPence: 4000, commissionPence: 500 })).toBe(
      'Earnings of £40.00 at 12.5% commission',
    );
  });

  it('makes the reference from the tutor prefix and the number it is given', () => {
    expect(invoiceReference('JS', 12)).toBe('JS0012');
    expect(invoiceReference('ABC', 12345)).toBe('ABC12345');
    given([])
      .when(generate({ number: 0 }))
      .thenRefused('invalid', 'whole number');
  });

  it('does not create a second invoice: generating again records nothing', () => {
    given([generated])
      .when(generate({ invoiceId: 'i2', number: 13 }))
      .thenEvents([]);
    given([generated, confirmed]).when(generate()).thenEvents([]);
  });

  it('generates a month with no lessons, to be confirmed as no lessons', () => {
    given([])
      .when(generate({ lessons: [] }))
      .thenEvents([
        {
          type: 'InvoiceGenerated',
          data: {
            ...generated.data,
            items: [],
            lessonCount: 0,
            earningsPence: 0,
            commissionPence: 0,
            partnerCommissionPence: 0,
          },
        },
      ]);
  });

  it('refuses lessons of another month', () => {
    given([])
      .when(generate({ lessons: [...lessons, lessonAt('l4', '2026-04-01', 4000, 2500)] }))
      .thenRefused('invalid', 'does not belong on the invoice for March 2026');
  });

  it('lets the tutor, their partner or an admin generate, nobody else', () => {
    given([])
      .when(generate({ actor: admin }))
      .thenEvents([generated]);
    given([])
      .when(generate({ actor: { role: 'partner', tutorId: 't1' } }))
      .thenEvents([generated]);
    given([])
      .when(generate({ actor: { role: 'tutor', tutorId: 't2' } }))
      .thenRefused('forbidden');
  });
});

describe('confirming', () => {
  it('is done by the tutor of the invoice (a partner for their own invoice too) or an admin', () => {
    given([generated]).when({ type: 'ConfirmInvoice', actor: tutor }).thenEvents([confirmed]);
    given([generated]).when({ type: 'ConfirmInvoice', actor: admin }).thenEvents([confirmed]);
    given([generated])
      .when({ type: 'ConfirmInvoice', actor: { role: 'partner', tutorId: 't1' } })
      .thenEvents([confirmed]);
  });

  it('is refused to another tutor and to a partner for another tutor', () => {
    given([generated])
      .when({ type: 'ConfirmInvoice', actor: { role: 'tutor', tutorId: 't2' } })
      .thenRefused('forbidden', "Only the invoice's tutor or an admin");
    given([generated])
      .when({ type: 'ConfirmInvoice', actor: { role: 'partner', tutorId: 't2' } })
      .thenRefused('forbidden');
  });

  it('a confirmed invoice never changes: confirming again records nothing', () => {
    given([generated, confirmed]).when({ type: 'ConfirmInvoice', actor: admin }).thenEvents([]);
    const state = fold(invoiceDecider, [generated, confirmed]);
    expect(state.status === 'confirmed' && state.invoice).toEqual(generated.data);
  });

  it('needs an invoice', () => {
    given([]).when({ type: 'ConfirmInvoice', actor: admin }).thenRefused('not_found');
  });
});

describe('withdrawing an unconfirmed invoice', () => {
  const withdrawn: InvoiceEvent = { type: 'InvoiceWithdrawn', data: { ...key, reference: 'JS0012' } };

  it('is done by its tutor (a partner for their own invoice too) or an admin, and voids its reference', () => {
    given([generated]).when({ type: 'WithdrawInvoice', actor: tutor }).thenEvents([withdrawn]);
    given([generated]).when({ type: 'WithdrawInvoice', actor: admin }).thenEvents([withdrawn]);
    given([generated])
      .when({ type: 'WithdrawInvoice', actor: { role: 'partner', tutorId: 't1' } })
      .thenEvents([withdrawn]);
    expect(fold(invoiceDecider, [generated, withdrawn])).toEqual({ status: 'none', voided: ['JS0012'] });
  });

  it('is refused to another tutor and to a partner for another tutor', () => {
    given([generated])
      .when({ type: 'WithdrawInvoice', actor: { role: 'tutor', tutorId: 't2' } })
      .thenRefused('forbidden', "Only the invoice's tutor or an admin can withdraw it");
    given([generated])
      .when({ type: 'WithdrawInvoice', actor: { role: 'partner', tutorId: 't2' } })
      .thenRefused('forbidden');
  });

  it('a confirmed invoice stays as it is', () => {
    given([generated, confirmed])
      .when({ type: 'WithdrawInvoice', actor: admin })
      .thenRefused('conflict', 'JS0012 is confirmed');
  });

  it('refuses an invoice with a payment, and needs an invoice', () => {
    const paid: InvoiceEvent = {
      type: 'InvoicePaymentRecorded',
      data: { ...key, paymentId: 'p1', date: '2026-04-10', amountPence: 100 },
    };
    given([generated, paid]).when({ type: 'WithdrawInvoice', actor: admin }).thenRefused('conflict', 'payment');
    given([]).when({ type: 'WithdrawInvoice', actor: admin }).thenRefused('not_found');
  });

  it('withdrawing again records nothing', () => {
    given([generated, withdrawn]).when({ type: 'WithdrawInvoice', actor: admin }).thenEvents([]);
  });

  it('the month is invoiced anew under the new number it is given; the void references are kept', () => {
    const again = { ...generated, data: { ...generated.data, reference: 'JS0013' } };
    given([generated, withdrawn])
      .when(generate({ number: 13 }))
      .thenEvents([again]);
    const state = fold(invoiceDecider, [generated, withdrawn, again]);
    expect(state.status === 'generated' && [state.invoice.reference, state.voided]).toEqual(['JS0013', ['JS0012']]);
  });
});

describe('payments', () => {
  const pay = { type: 'RecordPayment' as const, paymentId: 'p1', date: '2026-04-10', amountPence: 2900, actor: admin };
  const paid: InvoiceEvent = {
    type: 'InvoicePaymentRecorded',
    data: { ...key, paymentId: 'p1', date: '2026-04-10', amountPence: 2900 },
  };

  it('an admin records a payment; payments add up', () => {
    given([generated, confirmed]).when(pay).thenEvents([paid]);
    const state = fold(invoiceDecider, [
      generated,
      confirmed,
      paid,
      { ...paid, data: { ...paid.data, amountPence: 100 } },
    ]);
    expect(state.status === 'confirmed' && state.paidPence).toBe(3000);
  });

  it('refuses anyone but an admin, and an amount of 0 or less', () => {
    given([generated])
      .when({ ...pay, actor: tutor })
      .thenRefused('forbidden', 'Only an admin');
    given([generated])
      .when({ ...pay, amountPence: 0 })
      .thenRefused('invalid', 'more than £0.00');
    given([generated])
      .when({ ...pay, amountPence: -5 })
      .thenRefused('invalid');
  });

  it('refuses a payment on an invoice that does not exist or has nothing to pay', () => {
    given([]).when(pay).thenRefused('not_found');
    const empty: InvoiceEvent = {
      type: 'InvoiceGenerated',
      data: {
        ...generated.data,
        items: [],
        lessonCount: 0,
        earningsPence: 0,
        commissionPence: 0,
        partnerCommissionPence: 0,
      },
    };
    given([empty]).when(pay).thenRefused('invalid', 'nothing to pay');
  });
});

describe('invoiceSummary', () => {
  it('totals equal the sums of the lessons and of the items, whatever the lessons', () => {
    const lesson = fc
      .tuple(
        fc.integer({ min: 1, max: 31 }),
        fc.integer({ min: 0, max: 100_000 }),
        fc.constantFrom(0, 1000, 2000, 2500, 3333),
      )
      .map(([day, amount, bp]) => lessonAt('l', `2026-03-${String(day).padStart(2, '0')}`, amount, bp));
    fc.assert(
      fc.property(fc.array(lesson, { maxLength: 50 }), (month) => {
        const summary = invoiceSummary(month);
        const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
        expect(summary.earningsPence).toBe(sum(month.map((l) => l.amountPence)));
        expect(summary.commissionPence).toBe(sum(month.map((l) => l.commissionPence)));
        expect(summary.partnerCommissionPence).toBe(sum(month.map((l) => l.partnerCommissionPence)));
        expect(sum(summary.items.map((i) => i.earningsPence))).toBe(summary.earningsPence);
        expect(sum(summary.items.map((i) => i.commissionPence))).toBe(summary.commissionPence);
        expect(new Set(summary.items.map((i) => i.commissionBp)).size).toBe(summary.items.length);
        expect(summary.lessonCount).toBe(month.length);
      }),
    );
  });
});
