/**
 * The one CSV reader of the product, for files made by spreadsheets (docs/import.md): UTF-8 with
 * or without a byte-order mark, `,` or `;` between fields (whichever the header row uses outside
 * quotes), quoted fields that hold the delimiter, doubled quotes or new lines, rows ended by CRLF,
 * LF or CR; byte-order marks (at the start or anywhere else) dropped. A field the product's own
 * writer defused (`'=…`, docs/csv.md) reads back as typed.
 * Linear in the length of the text: one pass, no backtracking.
 */
export type CsvRecord = {
  /** The row's number as a spreadsheet shows it: the header is row 1. */
  row: number;
  fields: string[];
};

export type CsvDocument = {
  delimiter: ',' | ';';
  header: string[];
  /** The rows under the header; wholly blank rows are left out (their numbers are kept by the others). */
  records: CsvRecord[];
};

export class CsvSyntaxError extends Error {
  constructor(
    message: string,
    readonly row: number,
  ) {
    super(message);
  }
}

/** `;` when the header row holds more of them than commas outside quotes (Excel in much of Europe). */
function detectDelimiter(text: string): ',' | ';' {
  let commas = 0;
  let semicolons = 0;
  let quoted = false;
  for (const char of text) {
    if (char === '"') quoted = !quoted;
    else if (quoted) continue;
    else if (char === '\n' || char === '\r') break;
    else if (char === ',') commas++;
    else if (char === ';') semicolons++;
  }
  return semicolons > commas ? ';' : ',';
}

const DEFUSED = /^'[=+\-@\t\r]/;

const undefuse = (field: string) => (DEFUSED.test(field) ? field.slice(1) : field);

export function readCsv(input: string): CsvDocument {
  // A byte-order mark is never part of a value: one at the start, or one that files joined end to
  // end left in the middle, is dropped (else a reference would differ from itself invisibly).
  const text = input.replace(/\uFEFF/g, '');
  const delimiter = detectDelimiter(text);
  const rows: CsvRecord[] = [];
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  let wasQuoted = false;
  let row = 1;
  let rowStart = 1;
  const endField = () => {
    fields.push(undefuse(field));
    field = '';
    wasQuoted = false;
  };
  const endRow = () => {
    endField();
    rows.push({ row: rowStart, fields });
    fields = [];
    row++;
    rowStart = row;
  };
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    if (quoted) {
      if (char === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else field += char;
      continue;
    }
    if (char === '"' && field.length === 0 && !wasQuoted) {
      quoted = true;
      wasQuoted = true;
    } else if (char === delimiter) endField();
    else if (char === '\r' || char === '\n') {
      if (char === '\r' && text[i + 1] === '\n') i++;
      endRow();
    } else field += char;
  }
  if (quoted) throw new CsvSyntaxError(`Row ${rowStart} opens a quote that is never closed.`, rowStart);
  if (field.length > 0 || fields.length > 0 || wasQuoted) endRow();
  const [first, ...rest] = rows.filter((record) => record.fields.some((value) => value.trim().length > 0));
  if (!first) throw new CsvSyntaxError('The file is empty: it needs a header row and a row per record.', 1);
  return { delimiter, header: first.fields.map((name) => name.trim()), records: rest };
}

/**
 * The file's text: UTF-8 (with or without a byte-order mark), or UTF-16 as Excel's "Unicode text"
 * saves it (its byte-order mark says which). Anything else is refused in words, rather than sent
 * with its £ turned into � or, for UTF-16 read as UTF-8, refused by the server for its NULs.
 */
// A global of the browser and of Node alike; contracts compile with neither's types, so it is named here.
declare const TextDecoder: new (
  label: string,
  options: { fatal: boolean; ignoreBOM: boolean },
) => { decode(input: Uint8Array): string };

export function csvFileText(bytes: Uint8Array): string {
  const [first, second] = bytes;
  const utf16 = first === 0xff && second === 0xfe ? 'utf-16le' : first === 0xfe && second === 0xff ? 'utf-16be' : '';
  let text: string;
  try {
    text = new TextDecoder(utf16 || 'utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new Error('The file is not UTF-8 text: save it from the spreadsheet as "CSV UTF-8".');
  }
  if (text.includes('\u0000'))
    throw new Error('The file holds NUL characters (is it a spreadsheet, not a CSV?): save it as "CSV UTF-8".');
  return text;
}

/**
 * A header as the product names its columns: `First Name`, `first-name` and `first_name` are the
 * same column (`first_name`).
 */
export const columnName = (header: string) =>
  header
    .trim()
    .toLowerCase()
    .replace(/[\s\-.]+/g, '_')
    .replace(/^_+|_+$/g, '');

/**
 * A spreadsheet's date as a calendar date (`YYYY-MM-DD`): `31/01/2026` (day first, as in the UK;
 * `-` or `.` between its parts too) or `2026-01-31`. Anything else is left as typed, for the
 * contract's own check to refuse in its words.
 */
export function calendarDateFrom(text: string): string {
  const value = text.trim();
  const dayFirst = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})$/.exec(value);
  if (dayFirst) {
    const [, day, month, year] = dayFirst as unknown as [string, string, string, string];
    return `${year}-${month.padStart(2, '0')}-${day.padStart(2, '0')}`;
  }
  const yearFirst = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(value);
  if (yearFirst) {
    const [, year, month, day] = yearFirst as unknown as [string, string, string, string];
    return `${year}-${month.padStart(2, '0')}-${day.padStart(2, '0')}`;
  }
  return value;
}
