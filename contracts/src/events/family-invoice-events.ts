import { z } from 'zod';
import { calendarDate, calendarMonth } from '../values';
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

/**
 * A lesson a line of a lessons invoice bills (docs/money-models.md, "Family lesson invoices"):
 * `tuition` (the agency sells it: the lesson's amount), `introduction-fee` (the agency's fee: the
 * lesson's commission), or `adjustment` (the difference a lesson changed, was recorded or removed
 * by after an invoice billed its month). The child's and tutor's names are in the invoice's
 * sealed `names`, by these ids.
 */
export const billedLesson = z.object({
  lessonId: z.string(),
  kind: z.enum(['tuition', 'introduction-fee', 'adjustment']),
  /** What the adjustment corrects: the lesson's model on its date. */
  model: z.enum(['agency-sells-tuition', 'introduction']),
  date: calendarDate,
  tutorId: z.string(),
  studentId: z.string(),
  engagementId: z.string(),
  /** Hundredths of an hour, the lesson as it is now (0: removed). */
  duration: z.number().int().min(0),
  ratePence: z.number().int().min(0),
  vatRateBp: z.number().int().min(0).max(10_000),
});
export type BilledLesson = z.infer<typeof billedLesson>;

/**
 * One line. `amountPence` is net of VAT; only a lessons invoice's adjustment line may be negative.
 * `vatPence` is the line's VAT (half up, half away from zero when negative); `lesson` names the
 * lesson a lessons invoice's line bills. Both are optional so the issuers of other invoices need not
 * name them (read back, a version 1 line has them as 0 and null: the upcaster).
 */
export const familyInvoiceLine = z.object({
  description: z.string(),
  amountPence: z.number().int(),
  vatPence: z.number().int().optional(),
  lesson: billedLesson.nullable().optional(),
});
export type FamilyInvoiceLine = z.infer<typeof familyInvoiceLine>;

/**
 * What the tutor billed the family for an `introduction` lesson (the tutor bills; the product
 * records it): shown on the agency's fee invoice, not part of its total.
 */
export const tutorBilledLesson = z.object({
  lessonId: z.string(),
  date: calendarDate,
  tutorId: z.string(),
  studentId: z.string(),
  duration: z.number().int().min(0),
  amountPence: z.number().int().min(0),
});
export type TutorBilledLesson = z.infer<typeof tutorBilledLesson>;

/**
 * What a family invoice bills: a consultation, workshop registrations (the workshop invoice's id),
 * a late fee (the overdue invoice's id; docs/reminders.md), or a month's lessons (`id` the month,
 * `yyyy-mm`; docs/money-models.md).
 */
export const billedFor = z.object({
  kind: z.enum(['consultation', 'workshops', 'late-fee', 'lessons']),
  id: z.string(),
});
export type BilledFor = z.infer<typeof billedFor>;

/**
 * Version 2 (lessons invoices): lines may carry their VAT and lesson, and the invoice its VAT total,
 * `tutorBilled` and the sealed `names` of the children and tutors its lines name; absent, they are
 * 0, null, none and none: what a version 1 invoice reads as (contracts/src/events/upcasters.ts).
 */
export const FamilyInvoiceIssued = defineEvent(
  'FamilyInvoiceIssued',
  2,
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
    /** The lines' VAT summed (included in `totalPence`); 0 when absent. */
    vatPence: z.number().int().min(0).optional(),
    /** What is owed: the lines' amounts and VAT summed, less the discount. */
    totalPence: z.number().int().min(0),
    /** Lessons invoices: what the tutor billed for `introduction` lessons. */
    tutorBilled: z.array(tutorBilledLesson).optional(),
    /** Personal (sealed with `billing`): the children and tutors the lines name, each id with its name. */
    names: z.array(z.object({ id: z.string(), name: z.string() })).optional(),
  }),
);

/**
 * The upcaster's step from version 1: a version 1 invoice is a version 2 one with no VAT, no lesson
 * on any line, nothing billed by tutors and no names, which version 2 says by leaving them out; so
 * the payload stays as it was stored (and its content hash with it: docs/documents.md).
 */
export const familyInvoiceIssuedV1ToV2 = (data: Record<string, unknown>) => data;

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

/**
 * An admin asked to bill the families for a month's lessons, stream `family-lesson-billing`: the
 * `lesson-billing` reactor issues each family with such lessons one invoice for the month, its id
 * derived from the family and the month, so a second request issues only what is missing.
 */
export const FamilyLessonBillingRequested = defineEvent(
  'FamilyLessonBillingRequested',
  1,
  z.object({ requestId: z.string(), month: calendarMonth, date: calendarDate }),
);

/**
 * An admin asked, for the family, for what its changed lessons owe it back as a credit note now
 * (docs/money-models.md), stream `family-lesson-credit-{clientId}`: the `lesson-billing` reactor
 * credits `creditedId` (the family's latest lessons invoice, for `month`) and bills the month again
 * at once on `nextId`, its next revision.
 */
export const FamilyLessonCreditRequested = defineEvent(
  'FamilyLessonCreditRequested',
  1,
  z.object({
    requestId: z.string(),
    clientId: z.string(),
    month: calendarMonth,
    creditedId: z.string(),
    nextId: z.string(),
    date: calendarDate,
  }),
);

export const familyInvoiceEvents = [
  FamilyLessonBillingRequested,
  FamilyLessonCreditRequested,
  FamilyInvoiceIssued,
  FamilyInvoicePaymentRecorded,
  FamilyCreditNoteIssued,
  FamilyInvoiceNumberTaken,
] as const;
export type FamilyInvoiceEvent = EventOf<(typeof familyInvoiceEvents)[number]>;
