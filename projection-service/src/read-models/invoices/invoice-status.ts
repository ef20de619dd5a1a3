import type { Pence } from '@agency/domain';

/** Pence amounts of a tutor's month: from the lessons, or from the invoice once there is one. */
export type MonthAmounts = { earningsPence: Pence; commissionPence: Pence; partnerCommissionPence: Pence };

/** What the report knows of one tutor in one month. */
export type TutorMonth = {
  tutorId: string;
  name: string;
  lessonCount: number;
  lessons: MonthAmounts;
  invoice: (MonthAmounts & { paidPence: Pence }) | null;
};

export type InvoiceStatus = 0 | 1 | 2 | 3;

/** Spec §4, in order. */
export const STATUS_HEADINGS: Record<InvoiceStatus, string> = {
  0: 'No lessons entered',
  1: 'Lessons entered but invoice not created',
  2: 'Invoice created but not paid',
  3: 'Invoice created and paid',
};

/**
 * Each tutor's month falls in exactly one group. An invoice counts as paid when money was
 * received (paid above 0, as the list's tick) or when there is nothing to pay: a month
 * confirmed as 'no lessons' has no commission, and a payment of nothing cannot be recorded.
 */
export function statusOf(month: TutorMonth): InvoiceStatus {
  if (month.invoice) return month.invoice.paidPence > 0 || month.invoice.commissionPence === 0 ? 3 : 2;
  return month.lessonCount > 0 ? 1 : 0;
}

export type StatusGroup = {
  group: InvoiceStatus;
  heading: string;
  /** Whether the group has amounts to show (Earnings, Commission, Partner Share and a Total row). */
  full: boolean;
  tutors: (MonthAmounts & { tutorId: string; name: string })[];
  totals: MonthAmounts;
};

const NOTHING: MonthAmounts = { earningsPence: 0, commissionPence: 0, partnerCommissionPence: 0 };

const add = (a: MonthAmounts, b: MonthAmounts): MonthAmounts => ({
  earningsPence: a.earningsPence + b.earningsPence,
  commissionPence: a.commissionPence + b.commissionPence,
  partnerCommissionPence: a.partnerCommissionPence + b.partnerCommissionPence,
});

/** The report's groups, in order, each only if it has tutors; tutors keep the order given. */
export function invoiceStatusGroups(months: readonly TutorMonth[]): StatusGroup[] {
  const groups: StatusGroup[] = ([0, 1, 2, 3] as const).map((group) => ({
    group,
    heading: STATUS_HEADINGS[group],
    full: group !== 0,
    tutors: [],
    totals: NOTHING,
  }));
  for (const month of months) {
    const group = groups[statusOf(month)]!;
    // An invoice's amounts are the ones it was generated with: the lessons are locked anyway.
    const { earningsPence, commissionPence, partnerCommissionPence } = month.invoice ?? month.lessons;
    const amounts = { earningsPence, commissionPence, partnerCommissionPence };
    group.tutors.push({ tutorId: month.tutorId, name: month.name, ...amounts });
    group.totals = add(group.totals, amounts);
  }
  return groups.filter((group) => group.tutors.length > 0);
}
