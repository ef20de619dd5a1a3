import { z } from 'zod';
import { calendarMonth, commandId, entityId } from '../values';

/**
 * `POST /api/family-invoices/lesson-billing` (admins): bill the families for a month's lessons,
 * `yyyy-mm`, this month or an earlier one (docs/money-models.md, "Family lesson invoices").
 */
export const lessonBillingBody = z.object({ commandId, month: calendarMonth });
export type LessonBillingBody = z.input<typeof lessonBillingBody>;

/**
 * `POST /api/family-invoices/lesson-credit` (admins): the family asks for what it is owed back by
 * lessons changed after they were billed, as a credit note now (docs/money-models.md).
 */
export const lessonCreditBody = z.object({ commandId, clientId: entityId('Family is required') });
export type LessonCreditBody = z.input<typeof lessonCreditBody>;

/**
 * Its answer: the credit note of the family's latest lessons invoice, and that month billed again
 * (null while under way, `underWay` true, or when the month billed again came to nothing).
 */
const documentAnswer = z.object({ id: z.string(), reference: z.string(), total: z.number() });
export const lessonCreditAnswer = z.object({
  creditNote: documentAnswer.nullable(),
  invoice: documentAnswer.nullable(),
  underWay: z.boolean(),
});
export type LessonCreditAnswer = z.infer<typeof lessonCreditAnswer>;

/** Its answer: the request recorded, and whether its invoices were still being issued when it answered. */
export const lessonBillingAnswer = z.object({ month: z.string(), requestId: z.string(), underWay: z.boolean() });
export type LessonBillingAnswer = z.infer<typeof lessonBillingAnswer>;

/**
 * `GET /api/family-invoices/lines/{id}` (the office): a family invoice's lines as issued (any
 * invoice's; a lessons invoice's name their lessons), in pounds
 * and hours: each lesson's date, child, tutor, duration, rate, amount and VAT (an adjustment's may be
 * negative), the net, VAT and total, and what tutors billed for introduction lessons (not in the total).
 */
export const lessonInvoiceLine = z.object({
  /** `other`: a line of another invoice (a consultation, workshops, a late fee), naming no lesson. */
  kind: z.enum(['tuition', 'introduction-fee', 'adjustment', 'other']),
  lessonId: z.string(),
  date: z.string(),
  child: z.string(),
  tutor: z.string(),
  hours: z.number(),
  rate: z.number(),
  description: z.string(),
  amount: z.number(),
  vat: z.number(),
});
export const lessonInvoiceAnswer = z.object({
  id: z.string(),
  reference: z.string(),
  month: z.string(),
  lines: z.array(lessonInvoiceLine),
  net: z.number(),
  vat: z.number(),
  total: z.number(),
  tutorBilled: z.array(
    z.object({ date: z.string(), child: z.string(), tutor: z.string(), hours: z.number(), amount: z.number() }),
  ),
});
export type LessonInvoiceAnswer = z.infer<typeof lessonInvoiceAnswer>;
