import { z } from 'zod';
import { calendarYear, monthNumber } from '../values';
import { PAGE_SIZE, pageAnswer, pageQuery, queryId } from './query-values';

/**
 * A family invoice's state now: `credited` once a credit note cancelled it (nothing is owed on it
 * then, whatever was paid), else `paid` when nothing is left to pay, `part-paid` when some of it
 * was paid, `unpaid` when none.
 */
export const FAMILY_INVOICE_STATES = ['unpaid', 'part-paid', 'paid', 'credited'] as const;
export const familyInvoiceState = z.enum(FAMILY_INVOICE_STATES, {
  error: `State must be one of ${FAMILY_INVOICE_STATES.join(', ')}`,
});
export type FamilyInvoiceState = z.infer<typeof familyInvoiceState>;

/**
 * What a family invoice bills: a consultation, workshop bookings, a late fee (docs/reminders.md), or
 * a month's lessons (docs/money-models.md, "Family lesson invoices").
 */
export const familyInvoiceFor = z.enum(['consultation', 'workshops', 'late-fee', 'lessons']);

/** A blank filter in a query string is no filter (the UI's "All"). */
const blankIsNone = (value: unknown) => (value === '' ? undefined : value);

/**
 * `GET /api/family-invoices?client&state&year&month&limit&cursor[&format=csv]`: the family
 * invoices ledger (admins, partners and auditors): every family invoice (consultations and
 * workshops), credit note and payment, newest first, a page at a time (`cursor` is the previous
 * page's `nextCursor`). `client` keeps one family's; `state` the entries of the invoices in that
 * state now; `year` (and `month`) the entries dated in it. `format=csv` answers every filtered
 * entry as CSV (docs/csv.md) and takes no page.
 */
export const familyLedgerQuery = z
  .object({
    client: z.preprocess(blankIsNone, queryId.min(1).optional()),
    state: z.preprocess(blankIsNone, familyInvoiceState.optional()),
    year: z.preprocess(blankIsNone, calendarYear.optional()),
    month: z.preprocess(blankIsNone, monthNumber.optional()),
    format: z.enum(['json', 'csv']).optional(),
    ...pageQuery(PAGE_SIZE.familyInvoices),
  })
  .refine((query) => query.month === undefined || query.year !== undefined, {
    message: 'Choose the year of the month',
    path: ['month'],
  });
export type FamilyLedgerQuery = z.input<typeof familyLedgerQuery>;

/** Which document or money an entry of the ledger is. */
export const FAMILY_LEDGER_KINDS = ['invoice', 'credit note', 'payment'] as const;

/** One entry of the ledger; amounts in pounds (integer pence inside). */
export const familyLedgerEntry = z.object({
  kind: z.enum(FAMILY_LEDGER_KINDS),
  /** The entry's own id: an invoice's or a credit note's (its PDF), or a payment's. */
  id: z.string(),
  date: z.string(),
  /** The document's reference; a payment's is that of the invoice it pays. */
  reference: z.string(),
  /** The invoice the entry belongs to (itself, for an invoice). */
  invoiceId: z.string(),
  invoiceReference: z.string(),
  /** The family's id; null for a workshop booking billed without a family. */
  clientId: z.string().nullable(),
  /** The family's first contact (the name billed, for a booking without a family). */
  family: z.string(),
  billedFor: familyInvoiceFor,
  /** An invoice's total, a credit note's (the whole invoice it cancels), a payment's amount: never below 0. */
  amount: z.number(),
  /** The state now of the invoice the entry belongs to. */
  state: familyInvoiceState,
  /** What is still owed on the invoice, on the invoice's own entry; null on a credit note's or a payment's. */
  owed: z.number().nullable(),
});
export type FamilyLedgerEntry = z.infer<typeof familyLedgerEntry>;

/** The sums of every filtered entry (not only this page's). */
export const familyLedgerTotals = z.object({
  invoiced: z.number(),
  credited: z.number(),
  paid: z.number(),
  owed: z.number(),
});
export type FamilyLedgerTotals = z.infer<typeof familyLedgerTotals>;

export const familyLedgerAnswer = z.object({
  entries: z.array(familyLedgerEntry),
  totals: familyLedgerTotals,
  ...pageAnswer,
});
export type FamilyLedgerAnswer = z.infer<typeof familyLedgerAnswer>;

/** A family's invoice as its page lists it, with its credit note once credited. */
export const familyInvoiceView = z.object({
  id: z.string(),
  reference: z.string(),
  date: z.string(),
  dueDate: z.string(),
  billedFor: familyInvoiceFor,
  total: z.number(),
  paid: z.number(),
  owed: z.number(),
  state: familyInvoiceState,
  creditNote: z.object({ id: z.string(), reference: z.string(), date: z.string() }).nullable(),
});
export type FamilyInvoiceView = z.infer<typeof familyInvoiceView>;

/** A lesson delivered to one of the family's children: when, who, how long; never a price, a rate or a share. */
export const familyLessonView = z.object({
  id: z.string(),
  date: z.string(),
  childId: z.string(),
  child: z.string(),
  tutorId: z.string(),
  tutor: z.string(),
  /** Hours. */
  duration: z.number(),
});
export type FamilyLessonView = z.infer<typeof familyLessonView>;

/** A tutor who teaches (or taught) the family's children: which, what, since when, and whether still. */
export const familyTutorView = z.object({
  id: z.string(),
  name: z.string(),
  children: z.array(z.string()),
  subjects: z.array(z.string()),
  since: z.string(),
  current: z.boolean(),
});
export type FamilyTutorView = z.infer<typeof familyTutorView>;

/** The family page's most recent invoices and lessons: the ledger and the lessons list hold the rest. */
export const FAMILY_OVERVIEW_RECENT = { invoices: 50, lessons: 20 } as const;

/**
 * `GET /api/clients/:id/overview` (admins, partners and auditors): what the family owes in all,
 * its latest invoices (`invoiceCount` counts them all), the latest lessons delivered to its
 * children (dated today or before) and its tutors.
 */
export const familyOverviewAnswer = z.object({
  owed: z.number(),
  invoiceCount: z.number(),
  invoices: z.array(familyInvoiceView),
  lessons: z.array(familyLessonView),
  tutors: z.array(familyTutorView),
});
export type FamilyOverviewAnswer = z.infer<typeof familyOverviewAnswer>;
