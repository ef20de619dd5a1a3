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
