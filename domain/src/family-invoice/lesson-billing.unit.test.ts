import { type LessonDetails, upcastEvent } from '@agency/contracts';
import { describe, expect, it } from 'vitest';
import type { AgencyTerms } from '../money-model/money-model';
import { DomainError } from '../shared/decider';
import {
  billedSoFar,
  issuable,
  type LessonNow,
  lessonBillingDecider,
  lessonInvoiceLines,
  totalsOf,
  vatOf,
} from './lesson-billing';

const sells: AgencyTerms = { model: 'agency-sells-tuition', vatRateBp: 2000, payAfterFamilyPays: false };
const exempt: AgencyTerms = { ...sells, vatRateBp: 0 };
const introduces: AgencyTerms = { ...sells, model: 'introduction' };
const tutorPays: AgencyTerms = { ...sells, model: 'tutor-pays-commission' };

/** A lesson as a timesheet holds it: 1.5 h at £30.10 = £45.15 by default, 15 % commission. */
function lesson(lessonId: string, date: string, values: Partial<LessonDetails> = {}): LessonDetails {
  return {
    lessonId,
    engagementId: 'e-1',
    studentId: 'child-1',
    date,
    duration: 150,
    ratePence: 3010,
    amountPence: 4515,
    amountEdited: false,
    commissionBp: 1500,
    commissionPence: 677,
    partnerBp: 0,
    partnerCommissionPence: 0,
    ...values,
  };
}
const now = (details: LessonDetails, terms: AgencyTerms = sells): LessonNow => ({
  lesson: details,
  tutorId: 't-1',
  terms,
});

describe('VAT per line', () => {
  it('is the rate of the amount, to the penny, half up; half away from zero when negative', () => {
    expect(vatOf(4515, 2000)).toBe(903);
    expect(vatOf(1234, 2000)).toBe(247); // 246.8
    expect(vatOf(1232, 2000)).toBe(246); // 246.4
    expect(vatOf(-1233, 2000)).toBe(-247); // -246.6
    expect(vatOf(-1232, 2000)).toBe(-246);
    // A half penny only falls at rates like 17.5 %: 20 × 17.5 % = 3.5.
    expect(vatOf(20, 1750)).toBe(4);
    expect(vatOf(-20, 1750)).toBe(-4);
    expect(vatOf(4515, 0)).toBe(0);
  });
});

describe('a family’s lessons invoice', () => {
  it('bills each lesson the agency sells with its VAT, and the introduction fee (commission) with VAT; totals are sums of lines', () => {
    const { lines, tutorBilled } = lessonInvoiceLines(
      '2026-03',
      [
        now(lesson('l-2', '2026-03-12', { studentId: 'child-2' }), introduces),
        now(lesson('l-1', '2026-03-05')),
        now(lesson('l-3', '2026-03-19', { amountPence: 1234, duration: 41 })),
        // Another model's lesson is not the family's to pay the agency for.
        now(lesson('l-4', '2026-03-20'), tutorPays),
      ],
      new Map(),
    );
    expect(lines.map((line) => [line.lesson?.lessonId, line.lesson?.kind, line.amountPence, line.vatPence])).toEqual([
      ['l-1', 'tuition', 4515, 903],
      ['l-2', 'introduction-fee', 677, 135], // 135.4
      ['l-3', 'tuition', 1234, 247], // 246.8
    ]);
    expect(lines[0]?.description).toBe('Tuition, 1.5 h at £30.10/h');
    expect(lines[0]?.lesson).toMatchObject({
      date: '2026-03-05',
      tutorId: 't-1',
      studentId: 'child-1',
      vatRateBp: 2000,
    });
    expect(tutorBilled).toEqual([
      { lessonId: 'l-2', date: '2026-03-12', tutorId: 't-1', studentId: 'child-2', duration: 150, amountPence: 4515 },
    ]);
    expect(totalsOf(lines)).toEqual({ netPence: 6426, vatPence: 1285, grossPence: 7711 });
  });

  it('exempt: no VAT on any line', () => {
    const { lines } = lessonInvoiceLines('2026-03', [now(lesson('l-1', '2026-03-05'), exempt)], new Map());
    expect(totalsOf(lines)).toEqual({ netPence: 4515, vatPence: 0, grossPence: 4515 });
  });

  it('a lesson changed, recorded late or removed after its month was billed is an adjustment of the difference and its VAT', () => {
    const february = lessonInvoiceLines(
      '2026-02',
      [now(lesson('f-1', '2026-02-03')), now(lesson('f-2', '2026-02-10')), now(lesson('f-3', '2026-02-17'))],
      new Map(),
    );
    const billed = billedSoFar([{ lines: february.lines }]);
    const { lines } = lessonInvoiceLines(
      '2026-03',
      [
        now(lesson('f-1', '2026-02-03', { amountPence: 3010, duration: 100 })), // down by 1505
        now(lesson('f-2', '2026-02-10')), // unchanged: no line
        now(lesson('f-4', '2026-02-24', { amountPence: 1233 })), // recorded after February was billed
        now(lesson('m-1', '2026-03-02')),
        // f-3 removed
      ],
      billed,
    );
    expect(lines.map((line) => [line.lesson?.lessonId, line.lesson?.kind, line.amountPence, line.vatPence])).toEqual([
      ['m-1', 'tuition', 4515, 903],
      ['f-1', 'adjustment', -1505, -301],
      ['f-3', 'adjustment', -4515, -903],
      ['f-4', 'adjustment', 1233, 247], // 246.6
    ]);
    expect(lines.map((line) => line.description).slice(1)).toEqual([
      'Adjustment: lesson of 2026-02-03 changed',
      'Adjustment: lesson of 2026-02-17 removed',
      'Adjustment: lesson of 2026-02-24 recorded late',
    ]);
    expect(totalsOf(lines)).toEqual({ netPence: -272, vatPence: -54, grossPence: -326 });
    // Less than nothing: carried forward, no invoice.
    expect(issuable(lines)).toBe(false);

    // Billed once the adjustments are on an issued invoice: nothing more to adjust.
    const again = billedSoFar([{ lines: february.lines }, { lines }]);
    expect(
      lessonInvoiceLines(
        '2026-04',
        [
          now(lesson('f-1', '2026-02-03', { amountPence: 3010, duration: 100 })),
          now(lesson('f-2', '2026-02-10')),
          now(lesson('f-4', '2026-02-24', { amountPence: 1233 })),
          now(lesson('m-1', '2026-03-02')),
        ],
        again,
      ).lines,
    ).toEqual([]);
  });

  it('only adjustments next month make an invoice of adjustments', () => {
    const billed = billedSoFar([
      { lines: lessonInvoiceLines('2026-02', [now(lesson('f-1', '2026-02-03'))], new Map()).lines },
    ]);
    const { lines } = lessonInvoiceLines('2026-03', [now(lesson('f-1', '2026-02-03', { amountPence: 5000 }))], billed);
    expect(lines.map((line) => [line.lesson?.kind, line.amountPence, line.vatPence])).toEqual([
      ['adjustment', 485, 97],
    ]);
    expect(issuable(lines)).toBe(true);
    expect(issuable([])).toBe(false);
  });
});

describe('asking to bill a month', () => {
  const admin = { role: 'admin' as const };
  const ask = (month: string, actor: { role: 'admin' | 'tutor' } = admin) =>
    lessonBillingDecider.decide(
      { type: 'RequestLessonBilling', requestId: 'r-1', month, today: '2026-04-02', actor },
      lessonBillingDecider.initialState(),
      new Date(),
    );
  it('records a month up to the current one; refuses a later month, a malformed one and a non-admin', () => {
    expect(ask('2026-03')).toEqual([
      { type: 'FamilyLessonBillingRequested', data: { requestId: 'r-1', month: '2026-03', date: '2026-04-02' } },
    ]);
    expect(ask('2026-04')).toHaveLength(1);
    expect(() => ask('2026-05')).toThrow(DomainError);
    expect(() => ask('2026-13')).toThrow('like 2026-03');
    expect(() => ask('2026-03', { role: 'tutor' })).toThrow('Only an admin');
  });
});

describe('family invoices issued before lessons invoices', () => {
  it('read as version 2 unchanged: no VAT, no lesson, nothing billed by tutors and no names are left out', () => {
    const v1 = {
      invoiceId: 'i-1',
      totalPence: 7500,
      lines: [{ description: 'Consultation', amountPence: 7500 }],
      billing: { name: 'Jo Lee', address: [], postcode: '', email: '' },
    };
    expect(upcastEvent('FamilyInvoiceIssued', 1, v1)).toEqual({ version: 2, data: v1 });
    expect(totalsOf(v1.lines)).toEqual({ netPence: 7500, vatPence: 0, grossPence: 7500 });
  });
});
