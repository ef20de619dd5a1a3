import { z } from 'zod';
import { calendarMonth, commandId } from '../values';

/**
 * `POST /api/family-invoices/lesson-billing` (admins): bill the families for a month's lessons,
 * `yyyy-mm`, this month or an earlier one (docs/money-models.md, "Family lesson invoices").
 */
export const lessonBillingBody = z.object({ commandId, month: calendarMonth });
export type LessonBillingBody = z.input<typeof lessonBillingBody>;

/** Its answer: the request recorded, and whether its invoices were still being issued when it answered. */
export const lessonBillingAnswer = z.object({ month: z.string(), requestId: z.string(), underWay: z.boolean() });
export type LessonBillingAnswer = z.infer<typeof lessonBillingAnswer>;
