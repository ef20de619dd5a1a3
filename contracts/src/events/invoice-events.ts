import { z } from 'zod';
import { calendarDate, calendarMonth } from '../values';
import { defineEvent, type EventOf } from './define';

/** The month's earnings at one commission rate: 'Earnings of £X at N% commission'. */
export const invoiceItem = z.object({
  commissionBp: z.number().int().min(0).max(10_000),
  earningsPence: z.number().int().min(0),
  commissionPence: z.number().int().min(0),
});
export type InvoiceItem = z.infer<typeof invoiceItem>;

const invoiceKey = { invoiceId: z.string(), tutorId: z.string(), month: calendarMonth };

export const InvoiceGenerated = defineEvent(
  'InvoiceGenerated',
  1,
  z.object({
    ...invoiceKey,
    /** The tutor's invoice prefix and a number that never repeats for that tutor. */
    reference: z.string(),
    date: calendarDate,
    items: z.array(invoiceItem),
    lessonCount: z.number().int().min(0),
    earningsPence: z.number().int().min(0),
    commissionPence: z.number().int().min(0),
    partnerCommissionPence: z.number().int().min(0),
  }),
);
export const InvoiceConfirmed = defineEvent('InvoiceConfirmed', 1, z.object(invoiceKey));
export const InvoicePaymentRecorded = defineEvent(
  'InvoicePaymentRecorded',
  1,
  z.object({ ...invoiceKey, paymentId: z.string(), date: calendarDate, amountPence: z.number().int().positive() }),
);

/**
 * An unconfirmed invoice taken back by its tutor or an admin: its reference is void for good
 * (never given again) and its month's lessons are open again; the month may be invoiced anew.
 */
export const InvoiceWithdrawn = defineEvent('InvoiceWithdrawn', 1, z.object({ ...invoiceKey, reference: z.string() }));

/**
 * One number of a tutor's invoice sequence (stream `invoice-numbers-{tutorId}`), taken for one
 * generation of the month's invoice: `generationId` names the month lock that froze the lessons it
 * invoices, so a generation that runs again gets its own number back and no number is given twice.
 */
export const InvoiceNumberTaken = defineEvent(
  'InvoiceNumberTaken',
  1,
  z.object({ ...invoiceKey, generationId: z.string(), number: z.number().int().positive() }),
);

export const invoiceEvents = [
  InvoiceGenerated,
  InvoiceConfirmed,
  InvoicePaymentRecorded,
  InvoiceWithdrawn,
  InvoiceNumberTaken,
] as const;
export type InvoiceEvent = EventOf<(typeof invoiceEvents)[number]>;
