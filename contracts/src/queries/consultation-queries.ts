import { z } from 'zod';
import { agencyDetailsData } from '../agency';
import { calendarYear, monthNumber } from '../values';
import { listOrder, nameSearch, queryId } from './query-values';

/**
 * `GET /api/consultations?year&month&q&sort&order`: every consultation, newest first (or by
 * `sort`), or a year's or a month's, or those of a family whose contact or child has the name
 * searched (`q`).
 */
export const consultationListQuery = z.object({
  year: calendarYear.optional(),
  month: monthNumber.optional(),
  q: nameSearch,
  ...listOrder(['date', 'name', 'child', 'amount']),
});
export type ConsultationListQuery = z.input<typeof consultationListQuery>;

export const consultationRowView = z.object({
  id: z.string(),
  date: z.string(),
  clientId: z.string(),
  childId: z.string(),
  /** The family's first contact. */
  name: z.string(),
  /** The child's name. */
  child: z.string(),
  amount: z.number(),
  assessment: z.boolean(),
  assessmentDetails: z.object({ subjects: z.array(z.string()), tutorId: z.string().nullable() }).nullable(),
  /** The reference of the family invoice that bills it now (null once cancelled). */
  invoiceId: z.string().nullable(),
  invoiceReference: z.string().nullable(),
  /** Paid is ticked when paid is above 0. */
  paid: z.number(),
  /** What is still owed on that invoice: 0 once it is credited (or not issued yet). */
  owed: z.number(),
  cancelled: z.boolean(),
  /** That invoice's own credit note, once one cancelled it (the consultation's cancellation after issue). */
  creditNoteId: z.string().nullable(),
  creditNoteReference: z.string().nullable(),
  /**
   * The invoices that billed it before a change, oldest first, each with its own credit note
   * (null until the workflow has issued it).
   */
  replaced: z.array(
    z.object({
      invoiceId: z.string(),
      reference: z.string(),
      creditNoteId: z.string().nullable(),
      creditNoteReference: z.string().nullable(),
    }),
  ),
  /**
   * The invoicing workflow under way, or null when it is done: its invoice not issued yet, or an
   * invoice that no longer bills it (cancelled, or changed after issue) not credited yet.
   */
  underWay: z.enum(['issuing invoice', 'issuing credit note']).nullable(),
});
export type ConsultationRowView = z.infer<typeof consultationRowView>;
export const consultationListAnswer = z.object({ consultations: z.array(consultationRowView) });
export type ConsultationListAnswer = z.infer<typeof consultationListAnswer>;

/** `GET /api/family-invoices/doc/:id`: an invoice's or a credit note's PDF. */
export const familyDocumentParams = z.object({ id: queryId });

/**
 * `GET /api/agency`: the agency's own details, money in pounds; and, set by the deployment rather
 * than edited, how many years accounting copies are kept after an erasure (RETENTION_YEARS).
 */
export const agencyDetailsAnswer = agencyDetailsData
  .omit({ defaultConsultationPence: true })
  .extend({ defaultConsultationAmount: z.number(), retentionYears: z.number().int().positive() });
export type AgencyDetailsAnswer = z.infer<typeof agencyDetailsAnswer>;
