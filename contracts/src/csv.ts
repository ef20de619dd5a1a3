/**
 * The one CSV writer of the product (server and browser): every field quoted, quotes doubled,
 * rows ended by CRLF (RFC 4180), and a field that a spreadsheet would read as a formula (one that
 * begins with `=`, `+`, `-`, `@`, a tab or a carriage return) prefixed with `'`, so text typed by
 * anyone (a public booking included) is shown as text, never evaluated. See docs/csv.md.
 */
export type CsvValue = string | number | boolean | null | undefined;

const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(value: CsvValue): string {
  const text = value === null || value === undefined ? '' : String(value);
  // A number the product wrote (e.g. a credit of -12.5) is a value, not text somebody typed.
  const defused = typeof value !== 'number' && FORMULA_START.test(text) ? `'${text}` : text;
  return `"${defused.replaceAll('"', '""')}"`;
}

export const csvRow = (values: readonly CsvValue[]): string => `${values.map(csvCell).join(',')}\r\n`;

/** A whole CSV document: the header row, then one row per record. */
export const toCsv = (rows: readonly (readonly CsvValue[])[]): string => rows.map(csvRow).join('');
