import { z } from 'zod';
import { calendarDate } from '../values';
import { defineEvent, type EventOf } from './define';

/**
 * Whom a family invoice is addressed to: the family's first contact when it was issued. All of
 * the invoice's personal data is in this one field (the accounting copy kept under its own key).
 */
export const familyBilling = z.object({
  name: z.string(),
  address: z.array(z.string()),
  postcode: z.string(),
  email: z.string(),
});
export type FamilyBilling = z.infer<typeof familyBilling>;

export const familyInvoiceLine = z.object({ description: z.string(), amountPence: z.number().int().min(0) });
export type FamilyInvoiceLine = z.infer<typeof familyInvoiceLine>;

/**
 * What a family invoice bills: a consultation, workshop registrations (the workshop invoice's id),
 * or a late fee (the overdue invoice's id; docs/reminders.md).
 */
export const billedFor = z.object({ kind: z.enum(['consultation', 'workshops', 'late-fee']), id: z.string() });
export type BilledFor = z.infer<typeof billedFor>;

export const FamilyInvoiceIssued = defineEvent(
  'FamilyInvoiceIssued',
  1,
  z.object({
    invoiceId: z.string(),
    /** The agency's family-invoice prefix and a number of the agency-wide sequence. */
    reference: z.string(),
    date: calendarDate,
    dueDate: calendarDate,
    clientId: z.string(),
    billedFor,
    billing: familyBilling,
    lines: z.array(familyInvoiceLine),
    /** Taken off the lines' sum (workshop invoices); absent on invoices before discounts. */
    discountPence: z.number().int().min(0).optional(),
    totalPence: z.number().int().min(0),
  }),
);

export const FamilyInvoicePaymentRecorded = defineEvent(
  'FamilyInvoicePaymentRecorded',
  1,
  z.object({
    invoiceId: z.string(),
    paymentId: z.string(),
    date: calendarDate,
    amountPence: z.number().int().positive(),
  }),
);

/** A credit note cancels the whole invoice: a new document with its own reference, never an edit. */
export const FamilyCreditNoteIssued = defineEvent(
  'FamilyCreditNoteIssued',
  1,
  z.object({
    invoiceId: z.string(),
    creditNoteId: z.string(),
    reference: z.string(),
    date: calendarDate,
    reason: z.enum(['changed', 'cancelled']),
    lines: z.array(familyInvoiceLine),
    totalPence: z.number().int().min(0),
  }),
);

/** One number of the agency-wide reference sequence, given to one document (invoice or credit note). */
export const FamilyInvoiceNumberTaken = defineEvent(
  'FamilyInvoiceNumberTaken',
  1,
  z.object({ number: z.number().int().positive(), documentId: z.string() }),
);

export const familyInvoiceEvents = [
  FamilyInvoiceIssued,
  FamilyInvoicePaymentRecorded,
  FamilyCreditNoteIssued,
  FamilyInvoiceNumberTaken,
] as const;
export type FamilyInvoiceEvent = EventOf<(typeof familyInvoiceEvents)[number]>;
