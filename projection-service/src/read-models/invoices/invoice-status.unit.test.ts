import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { invoiceStatusGroups, statusOf, type TutorMonth } from './invoice-status';

const none = { earningsPence: 0, commissionPence: 0, partnerCommissionPence: 0 };
const some = { earningsPence: 10_000, commissionPence: 2_500, partnerCommissionPence: 250 };
const tutorMonth = (over: Partial<TutorMonth>): TutorMonth => ({
  tutorId: 't',
  name: 'T',
  lessonCount: 0,
  lessons: none,
  invoice: null,
  ...over,
});

describe('invoice status groups', () => {
  it('follows spec §4: no lessons, lessons without invoice, invoice not paid, invoice paid', () => {
    expect(statusOf(tutorMonth({}))).toBe(0);
    expect(statusOf(tutorMonth({ lessonCount: 2, lessons: some }))).toBe(1);
    expect(statusOf(tutorMonth({ lessonCount: 2, lessons: some, invoice: { ...some, paidPence: 0 } }))).toBe(2);
    expect(statusOf(tutorMonth({ lessonCount: 2, lessons: some, invoice: { ...some, paidPence: 1 } }))).toBe(3);
  });

  it('counts an invoice with nothing to pay (a month confirmed as no lessons) as settled', () => {
    expect(statusOf(tutorMonth({ invoice: { ...none, paidPence: 0 } }))).toBe(3);
  });

  it('shows a group only when it has tutors; group 0 alone is not full; totals are the sums', () => {
    const groups = invoiceStatusGroups([
      tutorMonth({ tutorId: 'a', name: 'A' }),
      tutorMonth({ tutorId: 'b', name: 'B', lessonCount: 1, lessons: some }),
      tutorMonth({ tutorId: 'c', name: 'C', lessonCount: 1, lessons: some }),
    ]);
    expect(groups.map((g) => [g.group, g.full, g.tutors.map((t) => t.tutorId)])).toEqual([
      [0, false, ['a']],
      [1, true, ['b', 'c']],
    ]);
    expect(groups[1]!.totals).toEqual({ earningsPence: 20_000, commissionPence: 5_000, partnerCommissionPence: 500 });
  });

  it('puts every tutor in exactly one group, whatever their month', () => {
    const amounts = fc.record({
      earningsPence: fc.nat(100_000),
      commissionPence: fc.nat(25_000),
      partnerCommissionPence: fc.nat(2_500),
    });
    const month = fc.record({
      lessonCount: fc.nat(5),
      lessons: amounts,
      invoice: fc.option(
        fc.tuple(amounts, fc.nat(30_000)).map(([invoiced, paidPence]) => ({ ...invoiced, paidPence })),
        { nil: null },
      ),
    });
    fc.assert(
      fc.property(fc.array(month, { maxLength: 12 }), (months) => {
        const tutors = months.map((m, index) => ({ ...m, tutorId: `t${index}`, name: `T${index}` }));
        const listed = invoiceStatusGroups(tutors).flatMap((group) => group.tutors.map((t) => t.tutorId));
        expect(listed.sort()).toEqual(tutors.map((t) => t.tutorId).sort());
      }),
    );
  });
});
