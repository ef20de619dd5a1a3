import { z } from 'zod';
import { LIMITS } from '../limits';
import { calendarDate, commandId, emailAddress, optionalId, optionalText, requiredText } from '../values';

const phoneEntry = z.object({
  type: z
    .string()
    .max(LIMITS.maxPhoneTypeLength * 4)
    .trim()
    .max(LIMITS.maxPhoneTypeLength)
    .default('Mobile'),
  number: z
    .string()
    .max(LIMITS.maxPhoneNumberLength * 4)
    .trim()
    .max(LIMITS.maxPhoneNumberLength)
    .default(''),
});

/** A tutor's contact: address and phone are lists that may be empty; blank entries are dropped. */
export const tutorContactBody = z.object({
  id: optionalId,
  firstName: requiredText('First name is required'),
  lastName: requiredText('Last name is required'),
  address: z
    .array(optionalText)
    .max(LIMITS.maxAddressLines, `An address has at most ${LIMITS.maxAddressLines} lines`)
    .default([])
    .transform((lines) => lines.filter((line) => line.length > 0)),
  postcode: requiredText('Postcode is required'),
  email: emailAddress,
  phone: z
    .array(phoneEntry)
    .max(LIMITS.maxPhoneNumbers, `A contact has at most ${LIMITS.maxPhoneNumbers} phone numbers`)
    .default([])
    .transform((entries) => entries.filter((entry) => entry.number.length > 0)),
});

export const tutorUsername = requiredText('Username is required')
  .pipe(
    z
      .string()
      .max(LIMITS.maxTutorUsernameLength, `Username is too long (${LIMITS.maxTutorUsernameLength} characters at most)`),
  )
  .pipe(
    z
      .string()
      .regex(/^[A-Za-z0-9._-]+$/, 'Username may hold only letters, digits, dots, dashes and underscores')
      .transform((value) => value.toLowerCase()),
  );

export const invoicePrefix = requiredText('Invoice Prefix is required')
  .pipe(
    z
      .string()
      .max(
        LIMITS.maxInvoicePrefixLength,
        `Invoice Prefix is too long (${LIMITS.maxInvoicePrefixLength} characters at most)`,
      ),
  )
  .pipe(
    z
      .string()
      .regex(/^[A-Za-z0-9]+$/, 'Invoice Prefix may hold only letters and digits')
      .transform((value) => value.toUpperCase()),
  );

/** `POST /api/tutors/contact` (new) and `POST /api/tutors/tutor` (existing): `{ contact, tutor }`. */
export const tutorBody = z.object({
  commandId,
  contact: tutorContactBody.prefault({} as never),
  tutor: z
    .object({
      id: optionalId,
      username: tutorUsername,
      invoicePrefix,
      startDate: z
        .union([calendarDate, z.literal(''), z.null()])
        .optional()
        .transform((value) => value || null),
    })
    .prefault({ username: '', invoicePrefix: '' }),
});

export const tutorSuggestionBody = z.object({
  firstName: requiredText('First name is required'),
  lastName: requiredText('Last name is required'),
});

/** Terminate (`active: false`, optional `endDate`) or reactivate (`active: true`, optional `startDate`). */
export const tutorActiveBody = z.object({
  commandId,
  id: optionalId,
  active: z.boolean({ error: 'active must be true or false' }),
  endDate: z
    .union([calendarDate, z.literal(''), z.null()])
    .optional()
    .transform((value) => value || null),
  startDate: z
    .union([calendarDate, z.literal(''), z.null()])
    .optional()
    .transform((value) => value || null),
});

export const tutorPartnerBody = z.object({
  commandId,
  partner: z.boolean({ error: 'partner must be true or false' }),
});

export const noBody = z.object({ commandId });
