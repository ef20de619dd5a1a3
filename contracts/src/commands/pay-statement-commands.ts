import { z } from 'zod';
import { calendarMonth, commandId, entityId } from '../values';

/**
 * `POST /api/pay-statements` (admins): prepare the month's pay statements, one per tutor with
 * lessons the agency sold (docs/money-models.md, "Pay statements"). Once per month, months in order.
 */
export const preparePayStatementsBody = z.object({
  commandId,
  month: z.string({ error: 'Month is required' }).min(1, 'Month is required').pipe(calendarMonth),
});
export type PreparePayStatementsBody = z.input<typeof preparePayStatementsBody>;

/** `POST /api/pay-statements/confirm` (the statement's tutor, or an admin on their behalf): `id` is `{tutorId}-{yyyy-mm}`. */
export const confirmPayStatementBody = z.object({
  commandId,
  id: entityId('Pay statement is required'),
});
export type ConfirmPayStatementBody = z.input<typeof confirmPayStatementBody>;

/** `GET /api/pay-statements?month=&tutorId=`: a tutor only their own; admins, partners and auditors anyone's. */
export const payStatementListQuery = z.object({
  month: calendarMonth.optional(),
  tutorId: z.string().max(200).optional(),
});

/** A statement in a list, amounts in pounds: `owed` is what is left to pay (0 when the total is below 0). */
export const payStatementSummary = z.object({
  id: z.string(),
  tutorId: z.string(),
  tutorName: z.string(),
  month: z.string(),
  period: z.string(),
  reference: z.string(),
  date: z.string(),
  totalPay: z.number(),
  held: z.number(),
  confirmed: z.boolean(),
  paid: z.number(),
  owed: z.number(),
});
export type PayStatementSummary = z.infer<typeof payStatementSummary>;
export const payStatementListAnswer = z.object({ statements: z.array(payStatementSummary) });

/** One line as the statement page shows it (the child named now: "Erased" once the family is). */
export const payStatementLineView = z.object({
  kind: z.enum(['lesson', 'held', 'released', 'adjustment']),
  lessonId: z.string(),
  date: z.string(),
  child: z.string(),
  hours: z.number(),
  amount: z.number(),
  share: z.number(),
  pay: z.number(),
  paidBefore: z.number(),
  line: z.number(),
  removed: z.boolean(),
  description: z.string(),
});
export type PayStatementLineView = z.infer<typeof payStatementLineView>;

/** `GET /api/pay-statements/:id`. */
export const payStatementAnswer = z.object({
  statement: payStatementSummary.extend({ carried: z.number(), lines: z.array(payStatementLineView) }),
});
export type PayStatementAnswer = z.infer<typeof payStatementAnswer>;
export const payStatementParams = z.object({ id: z.string().min(1).max(200) });
