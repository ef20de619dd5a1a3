import {
  type ContactDetails,
  isDateInRange,
  isSingleEmailAddress,
  LIMITS,
  SINGLE_EMAIL_MESSAGE,
} from '@agency/contracts';
import { DomainError } from './decider';
import { formatPounds } from './money';

/**
 * The second line of defence: the deciders check the bounds of `LIMITS` again, so a command
 * that did not come through a contract schema (a script, a test, a future route) still cannot
 * store an event that a read model cannot hold. Every amount a decider can produce from bounded
 * inputs stays far inside Number.MAX_SAFE_INTEGER (24 h × £10,000 = 2.4e9 pence-hundredths;
 * £100,000 × 10,000 bp = 1e11), and so do sums of them.
 */
const refuse = (field: string, message: string): never => {
  throw new DomainError('invalid', `${message}.`, { [field]: message });
};

const isWhole = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value);

/** Integer pence from 0 to `max` (`positive`: above 0). */
export function checkPence(
  value: unknown,
  {
    field,
    label,
    max = LIMITS.maxMoneyPence,
    positive = false,
  }: {
    field: string;
    label: string;
    max?: number;
    positive?: boolean;
  },
): number {
  if (!isWhole(value)) return refuse(field, `${label} must be an amount in pounds and pence`);
  if (positive ? value <= 0 : value < 0) {
    return refuse(field, positive ? `${label} must be more than 0` : `${label} cannot be negative`);
  }
  if (value > max) return refuse(field, `${label} cannot be more than ${formatPounds(max)}`);
  return value;
}

/** Hundredths of an hour from 0 to 24 hours. */
export function checkDuration(value: unknown, field = 'duration'): number {
  if (!isWhole(value)) return refuse(field, 'Duration must be in hours, with at most two decimals');
  if (value < 0) return refuse(field, 'Duration cannot be negative');
  if (value > LIMITS.maxDurationHundredths) {
    return refuse(field, `Duration cannot be more than ${LIMITS.maxDurationHundredths / 100} hours`);
  }
  return value;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Dates already found real and in range: at most the 73,414 days from 1900 to 2100. */
const realDates = new Set<unknown>();

/** A real `YYYY-MM-DD` date from 1900-01-01 to 2100-12-31. */
export function checkDate(value: unknown, field = 'date'): string {
  if (realDates.has(value)) return value as string;
  if (typeof value !== 'string' || value.length !== 10 || !DATE.test(value)) {
    return refuse(field, 'Use a date like 2026-01-31');
  }
  const date = new Date(`${value}T00:00:00Z`);
  if (Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== value)
    return refuse(field, 'Not a real date');
  if (!isDateInRange(value)) return refuse(field, `Use a date between ${LIMITS.minDate} and ${LIMITS.maxDate}`);
  realDates.add(value);
  return value;
}

/** Text of at most `max` characters (`required`: not blank). */
export function checkText(
  value: unknown,
  {
    field,
    label,
    max = LIMITS.maxTextLength,
    required = false,
  }: {
    field: string;
    label: string;
    max?: number;
    required?: boolean;
  },
): string {
  if (typeof value !== 'string') return refuse(field, `${label} must be text`);
  if (required && value.trim().length === 0) return refuse(field, `${label} is required`);
  if (value.length > max) return refuse(field, `${label} is too long (${max} characters at most)`);
  return value;
}

export const checkId = (value: unknown, field: string, label: string) =>
  checkText(value, { field, label, max: LIMITS.maxIdLength, required: true });

/** A list of at most `max` entries, each checked by `each`. */
export function checkList<T>(value: unknown, max: number, field: string, label: string, each: (item: unknown) => T) {
  if (!Array.isArray(value)) return refuse(field, `${label} must be a list`);
  if (value.length > max) return refuse(field, `${label}: ${max} at most`);
  return value.map(each);
}

/** Every field of a contact, as the contact forms bound them. */
export function checkContact(contact: Omit<ContactDetails, 'id'> & { id?: string }) {
  if (contact.id !== undefined) checkId(contact.id, 'id', 'The contact id');
  checkText(contact.firstName, { field: 'firstName', label: 'First name' });
  checkText(contact.lastName, { field: 'lastName', label: 'Last name' });
  checkList(contact.address, LIMITS.maxAddressLines, 'address', 'Address lines', (line) =>
    checkText(line, { field: 'address', label: 'An address line' }),
  );
  checkText(contact.postcode, { field: 'postcode', label: 'Postcode' });
  const email = checkText(contact.email, { field: 'email', label: 'Email', max: LIMITS.maxEmailLength });
  if (email.length > 0 && !isSingleEmailAddress(email)) refuse('email', SINGLE_EMAIL_MESSAGE);
  checkList(contact.phone, LIMITS.maxPhoneNumbers, 'phone', 'Phone numbers', (entry) => {
    const { type, number } = (entry ?? {}) as { type?: unknown; number?: unknown };
    checkText(type, { field: 'phone', label: 'A phone type', max: LIMITS.maxPhoneTypeLength });
    checkText(number, { field: 'phone', label: 'A phone number', max: LIMITS.maxPhoneNumberLength });
  });
  if (contact.dob !== null && contact.dob !== undefined) checkDate(contact.dob, 'dob');
}
