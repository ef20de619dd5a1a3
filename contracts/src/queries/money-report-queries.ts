import { z } from 'zod';
import { calendarDate } from '../values';
import { queryId } from './query-values';

/** The aged-debt report's columns: what is owed, by how many days past its due date. */
export const AGED_DEBT_BUCKETS = ['current', '1-30', '31-60', '61-90', '90+'] as const;
export type AgedDebtBucket = (typeof AGED_DEBT_BUCKETS)[number];

/** `GET /api/reports/aged-debt[?format=csv]` (admins, partners, auditors): today's aged debt. */
export const agedDebtQuery = z.object({ format: z.enum(['json', 'csv']).optional() });

/** Pounds owed in each column; `total` is their sum. */
export const agedDebtAmounts = z.object({
  current: z.number(),
  days1to30: z.number(),
  days31to60: z.number(),
  days61to90: z.number(),
  over90: z.number(),
  total: z.number(),
});
export type AgedDebtAmounts = z.infer<typeof agedDebtAmounts>;

export const agedDebtRow = agedDebtAmounts.extend({
  /** The family's id (`registration:{id}` for a workshop booking billed without a family). */
  clientId: z.string(),
  /** The name billed on its latest invoice ("Erased" once the family is erased). */
  family: z.string(),
  invoices: z.number().int(),
  /** The latest reminder sent on any of its unpaid invoices (its step and date), if any. */
  lastReminder: z.object({ step: z.number().int(), date: z.string() }).nullable(),
});
export type AgedDebtRow = z.infer<typeof agedDebtRow>;

export const agedDebtAnswer = z.object({ asOf: z.string(), rows: z.array(agedDebtRow), totals: agedDebtAmounts });
export type AgedDebtAnswer = z.infer<typeof agedDebtAnswer>;

/** An export's longest period: a year (leap or not) and a day. */
const MAX_EXPORT_DAYS = 366;

/**
 * `GET /api/reports/accounting-export?from&to&layout&part[&since]` (admins, auditors): the period's
 * sales invoices (tutors' commission invoices and family invoices), credit notes and payments as
 * CSV in Xero's import layout or a QuickBooks one. `since` is a previous export's mark (its
 * `export-mark` header): only what was recorded after it. See docs/accounting-export.md.
 */
export const accountingExportQuery = z
  .object({
    from: calendarDate,
    to: calendarDate,
    layout: z.enum(['xero', 'quickbooks']).default('xero'),
    /** Sales documents (invoices and credit notes) or payments: Xero imports them apart. */
    part: z.enum(['sales', 'payments']).default('sales'),
    since: z.preprocess(
      (value) => (value === '' ? undefined : value),
      queryId.regex(/^\d{1,19}\.\d{1,19}$/, 'Use the export-mark of an earlier export').optional(),
    ),
  })
  .refine((query) => query.from <= query.to, { message: 'The period ends before it starts', path: ['to'] })
  .refine((query) => Date.parse(query.to) - Date.parse(query.from) <= MAX_EXPORT_DAYS * 86_400_000, {
    message: `Export at most ${MAX_EXPORT_DAYS + 1} days at once`,
    path: ['to'],
  });
export type AccountingExportQuery = z.input<typeof accountingExportQuery>;
