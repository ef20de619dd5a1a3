import { z } from 'zod';
import { LIMITS } from '../limits';
import { calendarDate, calendarYear, commandId, entityId, monthNumber } from '../values';
import { poundsFromForm } from './engagement-commands';

/**
 * `POST /api/invoices/save`: generate (or fetch, if already generated) the tutor's invoice for a
 * month. A month is invoiced once it has ended; `early: true` invoices the current month all the
 * same, locking its remaining days too: the UI sends it only after the user confirmed that.
 */
export const invoiceSaveBody = z.object({
  commandId,
  tutorId: entityId('Tutor is required'),
  year: calendarYear,
  month: monthNumber,
  early: z.boolean({ error: 'early must be true or false' }).optional(),
});

/** `POST /api/invoices/confirm`. */
export const invoiceConfirmBody = z.object({
  commandId,
  id: entityId('Invoice is required'),
});

/** `POST /api/invoices/withdraw`: the tutor or an admin takes back an unconfirmed invoice. */
export const invoiceWithdrawBody = invoiceConfirmBody;

/** An admin records money received against an invoice (the spec shows Paid but not how). */
export const invoicePaymentBody = z.object({
  commandId,
  invoiceId: entityId('Invoice is required'),
  date: z.string({ error: 'Date is required' }).min(1, 'Date is required').pipe(calendarDate),
  amount: poundsFromForm('Amount is required', 'Amount', { max: LIMITS.maxMoneyPence / 100, positive: true }),
});
