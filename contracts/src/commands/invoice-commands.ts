import { z } from 'zod';
import { LIMITS } from '../limits';
import { calendarDate, commandId, entityId } from '../values';
import { poundsFromForm } from './engagement-commands';

/** `POST /api/invoices/save`: generate (or fetch, if already generated) the tutor's invoice for a month. */
export const invoiceSaveBody = z.object({
  commandId,
  tutorId: entityId('Tutor is required'),
  year: z.coerce
    .number({ error: 'Year is required' })
    .int('Year must be a whole number')
    .min(2011, 'Year must be 2011 or later')
    .max(LIMITS.maxYear, `Year must be ${LIMITS.maxYear} or earlier`),
  month: z.coerce
    .number({ error: 'Month is required' })
    .int('Month must be a whole number')
    .min(1, 'Month must be 1 to 12')
    .max(12, 'Month must be 1 to 12'),
});
export type InvoiceSaveBody = z.infer<typeof invoiceSaveBody>;

/** `POST /api/invoices/confirm`. */
export const invoiceConfirmBody = z.object({
  commandId,
  id: entityId('Invoice is required'),
});
export type InvoiceConfirmBody = z.infer<typeof invoiceConfirmBody>;

/** An admin records money received against an invoice (the spec shows Paid but not how). */
export const invoicePaymentBody = z.object({
  commandId,
  invoiceId: entityId('Invoice is required'),
  date: z.string({ error: 'Date is required' }).min(1, 'Date is required').pipe(calendarDate),
  amount: poundsFromForm('Amount is required', 'Amount', { max: LIMITS.maxMoneyPence / 100, positive: true }),
});
export type InvoicePaymentBody = z.infer<typeof invoicePaymentBody>;
