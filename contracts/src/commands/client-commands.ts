import { z } from 'zod';
import { LIMITS } from '../limits';
import { calendarDate, commandId, emailAddress, optionalId, optionalText, requiredText } from '../values';

const phoneEntry = z.object({
  type: z
    .string()
    .max(LIMITS.maxPhoneTypeLength * 4)
    .trim()
    .max(LIMITS.maxPhoneTypeLength)
    .default('Home'),
  number: z
    .string()
    .max(LIMITS.maxPhoneNumberLength * 4)
    .trim()
    .max(LIMITS.maxPhoneNumberLength)
    .default(''),
});

/**
 * The contact form's body. Blank address lines and phone entries with no number are dropped,
 * as the spec says, before the required checks apply.
 */
export const contactBody = z.object({
  commandId,
  id: optionalId,
  firstName: requiredText('First name is required'),
  lastName: requiredText('Last name is required'),
  address: z
    .array(optionalText)
    .max(LIMITS.maxAddressLines, `An address has at most ${LIMITS.maxAddressLines} lines`)
    .default([])
    .transform((lines) => lines.filter((line) => line.length > 0))
    .refine((lines) => lines.length > 0, 'Address is required'),
  postcode: requiredText('Postcode is required'),
  email: emailAddress,
  phone: z
    .array(phoneEntry)
    .max(LIMITS.maxPhoneNumbers, `A contact has at most ${LIMITS.maxPhoneNumbers} phone numbers`)
    .default([])
    .transform((entries) => entries.filter((entry) => entry.number.length > 0))
    .refine((entries) => entries.length > 0, 'Phone is required'),
  dob: z
    .union([calendarDate, z.literal(''), z.null()])
    .optional()
    .transform((value) => value || null),
});

export const childBody = z.object({
  commandId,
  id: optionalId,
  clientId: optionalId,
  firstName: requiredText('First name is required'),
  lastName: requiredText('Last name is required'),
  dob: z.string({ error: 'Date of birth is required' }).min(1, 'Date of birth is required').pipe(calendarDate),
});
export type ChildBody = z.infer<typeof childBody>;

export const clientActiveBody = z.object({
  commandId,
  id: optionalId,
  active: z.boolean({ error: 'active must be true or false' }),
});

/**
 * Erasing a family's (or a tutor's) personal data: why, and an explicit confirmation, since the
 * erasure cannot be undone.
 */
export const erasureBody = z.object({
  commandId,
  reason: requiredText('Reason is required'),
  confirm: z.literal(true, { error: 'Please confirm the erasure: it cannot be undone' }),
});
