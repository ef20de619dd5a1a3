import { z } from 'zod';
import { isDateInRange, isSingleEmailAddress, LIMITS, SINGLE_EMAIL_MESSAGE } from './limits';

const isRealDate = (value: string) => {
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
};

/** A calendar date, `YYYY-MM-DD`, that exists and lies between 1900-01-01 and 2100-12-31. */
export const calendarDate = z
  .string()
  .max(10, 'Use a date like 2026-01-31')
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'Use a date like 2026-01-31')
  .refine(isRealDate, 'Not a real date')
  .refine(isDateInRange, `Use a date between ${LIMITS.minDate} and ${LIMITS.maxDate}`);

/** A calendar month, `YYYY-MM`: the key of a timesheet and of an invoice. */
export const calendarMonth = z
  .string()
  .max(7, 'Use a month like 2026-01')
  .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'Use a month like 2026-01');

/** The first year the agency kept books in the product: no invoice or lesson list goes earlier. */
export const FIRST_BOOK_YEAR = 2011;
/** The last year a list or an invoice can be asked for: next year, by the clock at the time of asking. */
export const lastBookYear = () => new Date().getUTCFullYear() + 1;

/**
 * A year of the agency's books, 2011 to next year (never past the product's calendar), as a number
 * or as the text of a query string.
 */
export const calendarYear = z.coerce
  .number({ error: 'Year is required' })
  .int('Year must be a whole number')
  .min(FIRST_BOOK_YEAR, `Year must be ${FIRST_BOOK_YEAR} or later`)
  .max(LIMITS.maxYear, { error: `Year must be ${LIMITS.maxYear} or earlier`, abort: true })
  .refine((year) => year <= lastBookYear(), { error: () => `Year must be ${lastBookYear()} or earlier` });

/** A month of a year, 1 to 12, where `year` and `month` appear together (API conventions). */
export const monthNumber = z.coerce
  .number({ error: 'Month is required' })
  .int('Month must be a whole number')
  .min(1, 'Month must be 1 to 12')
  .max(12, 'Month must be 1 to 12');

const tooLong = (max: number) => `Too long (${max} characters at most)`;

export const requiredText = (message: string, max: number = LIMITS.maxTextLength) =>
  z
    .string({ error: message })
    .max(max * 4, tooLong(max))
    .trim()
    .min(1, message)
    .max(max, tooLong(max));
export const optionalText = z
  .string()
  .max(LIMITS.maxTextLength * 4, tooLong(LIMITS.maxTextLength))
  .trim()
  .max(LIMITS.maxTextLength, tooLong(LIMITS.maxTextLength));

/** An id a client names (a UUID, or an invoice id `{tutorId}_{yyyy-mm}`): bounded, never blank. */
export const entityId = (message = 'id is required') =>
  z
    .string({ error: message })
    .min(1, message)
    .max(LIMITS.maxIdLength, `Too long (${LIMITS.maxIdLength} characters at most)`);

/** An optional id field as forms send it (may be blank): bounded like every other text. */
export const optionalId = z
  .string()
  .max(LIMITS.maxIdLength, `Too long (${LIMITS.maxIdLength} characters at most)`)
  .optional();

export const commandId = z.uuid('commandId must be a UUID').optional();

/** A contact's e-mail: required, one address (never a list). */
export const emailAddress = requiredText('Email is required', LIMITS.maxEmailLength).refine(
  // Blank or too long is already refused with its own message.
  (text) => text.length === 0 || text.length > LIMITS.maxEmailLength || isSingleEmailAddress(text),
  SINGLE_EMAIL_MESSAGE,
);
