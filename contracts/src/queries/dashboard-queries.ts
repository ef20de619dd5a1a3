import { z } from 'zod';
import { moneyModel } from '../events/money-model-events';
import { monthAmounts } from './query-values';

/** A month's lessons so far: how many, and their amounts (the partner's share left out for a tutor). */
export const dashboardMonth = monthAmounts.extend({
  year: z.number(),
  month: z.number(),
  period: z.string(),
  lessonCount: z.number(),
  /** The month's lessons by the money model they are under (docs/money-models.md), when one is not the spec's. */
  byModel: z.array(z.object({ model: moneyModel, lessonCount: z.number(), commission: z.number() })).optional(),
});

/** An invoice that needs someone: its tutor and month name the screen it links to. */
export const dashboardInvoice = z.object({
  id: z.string(),
  tutorId: z.string(),
  tutorName: z.string(),
  year: z.number(),
  month: z.number(),
  period: z.string(),
  reference: z.string(),
  commission: z.number(),
  paid: z.number(),
});

/**
 * `GET /api/dashboard`: the signed-in user's home. Staff: the agency's month against the last,
 * invoices awaiting confirmation and confirmed but unpaid, tutors with no lessons entered this
 * month, and (admins) unpaid family invoices. A tutor: their own month, their invoices to
 * confirm and their current students; the staff lists are empty.
 */
export const dashboardAnswer = z.object({
  thisMonth: dashboardMonth,
  lastMonth: dashboardMonth,
  awaitingConfirmation: z.array(dashboardInvoice),
  confirmedUnpaid: z.array(dashboardInvoice),
  tutorsWithoutLessons: z.array(z.object({ tutorId: z.string(), name: z.string() })),
  unpaidFamilyInvoices: z.array(
    z.object({
      id: z.string(),
      reference: z.string(),
      billedTo: z.string(),
      dueDate: z.string(),
      outstanding: z.number(),
    }),
  ),
  currentStudents: z.array(z.object({ studentId: z.string(), name: z.string() })),
});
export type DashboardAnswer = z.infer<typeof dashboardAnswer>;
