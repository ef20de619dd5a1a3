import { z } from 'zod';
import { LIMITS } from '../limits';

/**
 * What a query string carries: text, bounded. `includeInactive=Y` widens a list; anything else
 * (or nothing) leaves it at the active ones.
 */
export const yesFlag = z.string().max(8).optional();
/**
 * A list's search (`q`): a few words of a person's name, each the start of a first or last name
 * ("pat ad" finds Pat Adams); blank is no search.
 */
export const nameSearch = z.preprocess(
  (value) => (typeof value === 'string' && value.trim() === '' ? undefined : value),
  z.string().trim().max(LIMITS.maxTextLength, `Too long (${LIMITS.maxTextLength} characters at most)`).optional(),
);

/** A list's order: `sort` one of its main columns (absent: the list's own order), `order` ascending unless `desc`. */
export const listOrder = <const C extends readonly [string, ...string[]]>(columns: C) => ({
  sort: z.enum(columns).optional(),
  order: z.enum(['asc', 'desc']).optional(),
});

/** An id named in a query string or a path (may be blank in a query string: "everyone"). */
export const queryId = z.string().max(LIMITS.maxIdLength, `Too long (${LIMITS.maxIdLength} characters at most)`);

export const phoneNumber = z.object({ type: z.string(), number: z.string() });

/** A person's contact details as the queries answer them: a family contact's or a tutor's. */
export const contactViewFields = {
  firstName: z.string(),
  lastName: z.string(),
  address: z.array(z.string()),
  postcode: z.string(),
  email: z.string(),
  phone: z.array(phoneNumber),
};

/** Amounts in pounds; the partner's share is left out of a tutor's answer (visibility.ts). */
export const monthAmounts = z.object({
  earnings: z.number(),
  commission: z.number(),
  partnerCommission: z.number().optional(),
});

/**
 * `asOf=YYYY-MM-DDTHH:mm[:ss]` in the agency's time zone: the view as it was known at that moment,
 * replayed from the events recorded up to it (never a kept copy). Blank or absent is now.
 */
export const asOfMoment = z.preprocess(
  (value) => (value === '' ? undefined : value),
  z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/, 'Use YYYY-MM-DDTHH:mm')
    .refine((value) => !Number.isNaN(Date.parse(`${value}Z`)), 'Not a real moment')
    .optional(),
);
/** The query string of a view that can be seen as of a past moment. */
export const asOfQuery = z.object({ asOf: asOfMoment });

/** Rows per page of a paged list, unless the query asks for another `limit` (1 to `max`). */
export const PAGE_SIZE = {
  lessons: { default: 250, max: 1000 },
  clients: { default: 250, max: 1000 },
  /** Commands of the activity log (each read with the whole of the streams it touched). */
  activity: { default: 100, max: 500 },
  /** Entries of the family invoices ledger (invoices, credit notes, payments). */
  familyInvoices: { default: 100, max: 1000 },
} as const;

/**
 * A paged list's query: `limit` rows (a default and a maximum per list) after `cursor`, the
 * `nextCursor` of the previous page (absent: the first page). A cursor is opaque: it names the
 * last row shown by its id (and date), never by a person's name, so no name travels in a URL.
 */
export const pageQuery = (size: { default: number; max: number }) => ({
  limit: z.preprocess(
    (value) => (value === '' ? undefined : value),
    z.coerce
      .number()
      .int('Limit must be a whole number')
      .min(1, `Limit must be 1 to ${size.max}`)
      .max(size.max, `Limit must be 1 to ${size.max}`)
      .default(size.default),
  ),
  cursor: z.preprocess(
    (value) => (value === '' ? undefined : value),
    z
      .string()
      .max(4 * LIMITS.maxIdLength, 'Not a cursor of this list')
      .optional(),
  ),
});

/** What a paged answer adds: the rows in the whole list, and the cursor of the next page (null: this is the last). */
export const pageAnswer = {
  total: z.number(),
  nextCursor: z.string().nullable(),
};
