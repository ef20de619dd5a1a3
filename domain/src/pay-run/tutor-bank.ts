import { ERASED, type TutorBankEvent } from '@agency/contracts';
import { type Decider, DomainError } from '../shared/decider';
import { checkId, checkText } from '../shared/limits';
import type { Actor } from '../timesheet/timesheet';

/**
 * A tutor's bank account for pay runs, stream `bank-details-{tutorId}` (docs/money-models.md, "Pay
 * runs"). Not `tutor-…`: partners read the history of the streams about tutors' work, and these are
 * nobody's business but the office's. Every field is sealed under the tutor's key, so after an
 * erasure they read "Erased" and the tutor can no longer be paid into them.
 */
export type BankDetails = { accountName: string; sortCode: string; accountNumber: string; rollNumber: string | null };

/** The details in force (the latest set) and how many were recorded: the revision of the stream is `count - 1`. */
export type TutorBankState = { details: BankDetails | null; count: number };

export const bankDetailsStream = (tutorId: string) => `bank-details-${tutorId}`;

/** At most this long: a bank account's name as the bank holds it, and a roll number. */
export const BANK_LIMITS = { maxAccountName: 70, maxRollNumber: 18 } as const;

const refuse = (field: string, message: string): never => {
  throw new DomainError('invalid', `${message}.`, { [field]: message });
};

/** The digits of a sort code typed as `12-34-56`, `12 34 56` or `123456`, or a refusal. */
export function sortCodeDigits(value: unknown): string {
  const text = typeof value === 'string' ? value.trim() : '';
  if (!/^\d{2}([- ]?)\d{2}\1\d{2}$/.test(text)) return refuse('sortCode', 'A sort code is six digits, like 12-34-56');
  return text.replace(/\D/g, '');
}

/** An account number of eight digits (spaces allowed as typed), or a refusal. */
export function accountNumberDigits(value: unknown): string {
  const text = typeof value === 'string' ? value.replace(/ /g, '') : '';
  if (!/^\d{8}$/.test(text)) return refuse('accountNumber', 'An account number is eight digits');
  return text;
}

/** A sort code as people read it: `123456` → `12-34-56`. */
export const formatSortCode = (digits: string) =>
  /^\d{6}$/.test(digits) ? `${digits.slice(0, 2)}-${digits.slice(2, 4)}-${digits.slice(4)}` : digits;

/** An account number shown masked, its last four digits only (`****5678`). */
export const maskAccountNumber = (digits: string) => (/^\d{8}$/.test(digits) ? `****${digits.slice(4)}` : digits);

/** Details whose tutor was erased: every field reads "Erased" (docs/personal-data.md). */
export const isErased = (details: BankDetails) => details.sortCode === ERASED || details.accountNumber === ERASED;

/** What a form sent, checked and normalised: digits only, names trimmed, a blank roll number none. */
export function checkBankDetails(details: {
  accountName: unknown;
  sortCode: unknown;
  accountNumber: unknown;
  rollNumber?: unknown;
}): BankDetails {
  const accountName = checkText(details.accountName, {
    field: 'accountName',
    label: 'Account name',
    max: BANK_LIMITS.maxAccountName,
    required: true,
  }).trim();
  const roll = details.rollNumber === null || details.rollNumber === undefined ? '' : details.rollNumber;
  const rollNumber = checkText(roll, { field: 'rollNumber', label: 'Roll number', max: BANK_LIMITS.maxRollNumber })
    .trim()
    .toUpperCase();
  if (rollNumber && !/^[A-Z0-9][A-Z0-9 ./&-]*$/.test(rollNumber)) {
    refuse('rollNumber', 'A roll number has letters, digits, spaces and . / - & only');
  }
  return {
    accountName,
    sortCode: sortCodeDigits(details.sortCode),
    accountNumber: accountNumberDigits(details.accountNumber),
    rollNumber: rollNumber || null,
  };
}

export type SetBankDetails = {
  type: 'SetTutorBankDetails';
  tutorId: string;
  details: BankDetails;
  /** The tutor as their own stream says: recorded, and not erased. */
  tutor: 'none' | 'erased' | 'known';
  actor: Actor;
};

export const bankDetailsDecider: Decider<SetBankDetails, TutorBankEvent, TutorBankState> = {
  initialState: () => ({ details: null, count: 0 }),
  evolve: (state, event) =>
    event.type === 'TutorBankDetailsSet'
      ? {
          details: {
            accountName: event.data.accountName,
            sortCode: event.data.sortCode,
            accountNumber: event.data.accountNumber,
            rollNumber: event.data.rollNumber,
          },
          count: state.count + 1,
        }
      : state,
  decide: ({ tutorId, details, tutor, actor }, state) => {
    // The office pays into these: a tutor's own login changing them would be the way to divert their pay.
    if (actor.role !== 'admin') throw new DomainError('forbidden', 'Only an admin can change bank details.');
    checkId(tutorId, 'tutorId', 'The tutor id');
    if (tutor === 'none') throw new DomainError('not_found', 'There is no such tutor.');
    if (tutor === 'erased')
      throw new DomainError('conflict', 'This tutor was erased: nothing can be recorded for them.');
    const checked = checkBankDetails(details);
    const now = state.details;
    if (
      now &&
      now.accountName === checked.accountName &&
      now.sortCode === checked.sortCode &&
      now.accountNumber === checked.accountNumber &&
      now.rollNumber === checked.rollNumber
    ) {
      return [];
    }
    return [{ type: 'TutorBankDetailsSet', data: { tutorId, ...checked } }];
  },
};
