import { z } from 'zod';
import { moneyModel } from '../events/money-model-events';
import { calendarYear, monthNumber } from '../values';
import { asOfMoment, monthAmounts, queryId } from './query-values';

/** Blank or `all` means every one: the UI's "all tutors" / "all months" choice. */
const everyone = (value: unknown) => (value === '' || value === 'all' ? undefined : value);

/** `GET /api/invoices/?year&month&tutorId`: a year's invoices, or a month's, of one tutor or all. */
export const invoiceListQuery = z.object({
  year: calendarYear,
  month: z.preprocess(everyone, monthNumber.optional()),
  tutorId: z.preprocess(everyone, queryId.min(1).optional()),
  asOf: asOfMoment,
});
export type InvoiceListQuery = z.input<typeof invoiceListQuery>;

export const invoiceRowView = z.object({
  id: z.string(),
  tutorId: z.string(),
  month: z.string(),
  period: z.string(),
  date: z.string(),
  tutorName: z.string(),
  earnings: z.number(),
  commission: z.number(),
  /** Absent from a tutor's answer (visibility.ts). */
  partnerCommission: z.number().optional(),
  reference: z.string(),
  paid: z.number(),
  confirmed: z.boolean(),
  locked: z.boolean(),
  /** A withdrawn invoice: its reference is void and its amounts are in no total. */
  void: z.boolean(),
  /**
   * The money models the tutor's lessons of the month are under, when one is not the spec's: the
   * invoice bills only those under tutor-pays-commission (docs/money-models.md).
   */
  models: z.array(moneyModel).optional(),
});
export type InvoiceRowView = z.infer<typeof invoiceRowView>;
export const invoiceListAnswer = z.object({ invoices: z.array(invoiceRowView), totals: monthAmounts });
export type InvoiceListAnswer = z.infer<typeof invoiceListAnswer>;

/** `GET /api/invoices/summary`: one tutor's invoice of a month, for the confirmation page. */
export const invoiceSummaryQuery = z.object({
  year: calendarYear,
  month: monthNumber,
  tutorId: z.string({ error: 'Tutor is required' }).min(1, 'Tutor is required').pipe(queryId),
});

export const invoiceItemView = z.object({
  earnings: z.number(),
  commissionRate: z.number(),
  commission: z.number(),
  description: z.string(),
});
export type InvoiceItemView = z.infer<typeof invoiceItemView>;

/**
 * One tutor's invoice, the one shape it is answered in: by `GET /api/invoices/summary` and
 * `GET /api/invoices/:id`, and (through the latter) by the invoice commands (save, confirm,
 * payment). A tutor's answer has no partner share (visibility.ts).
 */
export const tutorInvoiceView = z.object({
  id: z.string(),
  tutorId: z.string(),
  tutorName: z.string(),
  month: z.string(),
  period: z.string(),
  reference: z.string(),
  date: z.string(),
  items: z.array(invoiceItemView),
  earnings: z.number(),
  commission: z.number(),
  /** Absent from a tutor's answer (visibility.ts). */
  partnerCommission: z.number().optional(),
  /** The commission the tutor owes: the total of the items. */
  totalCommission: z.number(),
  paid: z.number(),
  confirmed: z.boolean(),
  /** A confirmed invoice never changes: the confirmation page sends the user back to the list. */
  locked: z.boolean(),
});
export type TutorInvoiceView = z.infer<typeof tutorInvoiceView>;

export const invoiceSummaryAnswer = tutorInvoiceView;
export type InvoiceSummaryAnswer = z.infer<typeof invoiceSummaryAnswer>;

/** `GET /api/invoices/:id` (an id is `{tutorId}_{yyyy-mm}`): one invoice, not a withdrawn one. */
export const invoiceParams = z.object({ id: queryId });
export const invoiceAnswer = z.object({ invoice: tutorInvoiceView });
export type InvoiceAnswer = z.infer<typeof invoiceAnswer>;

/**
 * `GET /api/invoices/preview?year&month&tutorId`: what the month's invoice holds, from the
 * lessons before it is generated (nothing is written), from the invoice once it is.
 */
export const invoicePreviewQuery = invoiceSummaryQuery;
export const invoicePreviewAnswer = z.object({
  tutorId: z.string(),
  tutorName: z.string(),
  period: z.string(),
  lessonCount: z.number(),
  items: z.array(invoiceItemView),
  earnings: z.number(),
  totalCommission: z.number(),
  /** The month's invoice once generated; null before (or after a withdrawal). */
  invoice: z.object({ id: z.string(), reference: z.string(), date: z.string(), confirmed: z.boolean() }).nullable(),
  /** References of the month's withdrawn invoices, oldest first. */
  voided: z.array(z.string()),
  /**
   * The month's lessons under another money model than the spec's, by model: not on the tutor's
   * commission invoice, since the agency bills the family for them (docs/money-models.md). Absent
   * when there are none.
   */
  notOnInvoice: z.array(z.object({ model: moneyModel, lessonCount: z.number(), earnings: z.number() })).optional(),
});
export type InvoicePreviewAnswer = z.infer<typeof invoicePreviewAnswer>;

/** `GET /api/invoices/doc/:id`: the PDF (an invoice id is `{tutorId}_{yyyy-mm}`). */
export const invoiceDocumentParams = invoiceParams;

/** `GET /api/reports/invoiceStatus?year&month`: admins and partners. */
export const invoiceStatusQuery = z.object({ year: calendarYear, month: monthNumber, asOf: asOfMoment });
export type InvoiceStatusQuery = z.infer<typeof invoiceStatusQuery>;

const fullAmounts = monthAmounts.required();

export const invoiceStatusGroupView = z.object({
  /** 0 no lessons entered, 1 lessons but no invoice, 2 invoice not paid, 3 invoice paid (spec §4). */
  group: z.number(),
  heading: z.string(),
  /** Whether the group's table shows Earnings, Commission and Partner Share. */
  full: z.boolean(),
  tutors: z.array(
    fullAmounts.extend({
      tutorId: z.string(),
      name: z.string(),
      /** The money models the tutor's lessons of the month are under (docs/money-models.md), when one is not the spec's. */
      models: z.array(moneyModel).optional(),
    }),
  ),
  totals: fullAmounts,
});
export type InvoiceStatusGroupView = z.infer<typeof invoiceStatusGroupView>;
export const invoiceStatusAnswer = z.object({
  year: z.number(),
  month: z.number(),
  period: z.string(),
  groups: z.array(invoiceStatusGroupView),
});
export type InvoiceStatusAnswer = z.infer<typeof invoiceStatusAnswer>;
