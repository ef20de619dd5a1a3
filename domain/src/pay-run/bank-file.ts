import { csvRow } from '@agency/contracts';
import type { Pence } from '../shared/money';

/**
 * The bank file of a pay run (docs/money-models.md, "Pay runs"): one row per tutor paid, in the
 * columns UK banks' bulk-payment (Bacs) imports and Wise's batch template take: the payee's name,
 * sort code (six digits), account number (eight digits), amount in pounds with two decimals, and
 * the reference their bank shows. Names and references are cut to Bacs' 18 characters of its set
 * (A–Z, 0–9, space, `.`, `/`, `-`, `&`), and start with a letter or digit, so no row is refused
 * for a character the bank cannot carry and no cell reads as a spreadsheet formula.
 */
export const BACS_TEXT_MAX = 18;

/** Text in the characters Bacs carries: capitals, accents dropped, anything else a space, at most `max`. */
export function bankText(text: string, max = BACS_TEXT_MAX): string {
  const plain = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toUpperCase();
  return plain
    .replace(/[^A-Z0-9 ./&-]+/g, ' ')
    .replace(/ {2,}/g, ' ')
    .replace(/^[^A-Z0-9]+/, '')
    .slice(0, max)
    .trim();
}

/** Bacs wants at least six letters or digits in a reference. */
const isUsableReference = (reference: string) => (reference.match(/[A-Z0-9]/g)?.length ?? 0) >= 6;

/**
 * The reference a tutor's bank shows for a run's payment: a building society's roll number when the
 * account has one (the society credits the account by it), else the pay statement's reference when
 * one statement is paid, else `PAY` and the run's month.
 */
export function paymentReference(options: {
  month: string;
  statementReferences: readonly string[];
  rollNumber: string | null;
}): string {
  const { month, statementReferences, rollNumber } = options;
  const fallback = bankText(`PAY ${month}`);
  if (rollNumber) {
    const roll = bankText(rollNumber);
    if (roll) return roll;
  }
  if (statementReferences.length === 1) {
    const reference = bankText(statementReferences[0] as string);
    if (isUsableReference(reference)) return reference;
  }
  return fallback;
}

/** Pence as pounds with two decimals, in whole numbers only (`123456` → `1234.56`). */
export const poundsText = (pence: Pence) => `${Math.trunc(pence / 100)}.${String(pence % 100).padStart(2, '0')}`;

export type BankFileRow = {
  accountName: string;
  sortCode: string;
  accountNumber: string;
  amountPence: Pence;
  reference: string;
};

export const BANK_FILE_HEADER = ['Name', 'Sort code', 'Account number', 'Amount', 'Reference'] as const;

/** The file: the header, then one row per payment, through the product's one CSV writer (docs/csv.md). */
export function bankFileCsv(rows: readonly BankFileRow[]): string {
  return [
    csvRow(BANK_FILE_HEADER),
    ...rows.map((row) =>
      csvRow([
        bankText(row.accountName),
        row.sortCode,
        row.accountNumber,
        poundsText(row.amountPence),
        bankText(row.reference),
      ]),
    ),
  ].join('');
}
