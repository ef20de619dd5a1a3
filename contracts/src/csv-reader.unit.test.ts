import { describe, expect, it } from 'vitest';
import { toCsv } from './csv';
import { CsvSyntaxError, calendarDateFrom, columnName, csvFileText, readCsv } from './csv-reader';

describe('the CSV reader', () => {
  it('reads what the writer wrote, formulas defused on the way out and restored on the way in', () => {
    const rows = [
      ['name', 'note'],
      ['=HYPERLINK("x")', 'says "hi",\r\nthen goes'],
    ];
    expect(readCsv(toCsv(rows))).toEqual({
      delimiter: ',',
      header: ['name', 'note'],
      records: [{ row: 2, fields: rows[1] }],
    });
  });

  it('takes ; from the header, a BOM off, and keeps the spreadsheet row numbers past blank rows', () => {
    const document = readCsv('\uFEFFref;amount\r\nA;£1,200.50\r\n;\r\n\rB;"x;y"');
    expect(document.delimiter).toBe(';');
    expect(document.header).toEqual(['ref', 'amount']);
    expect(document.records).toEqual([
      { row: 2, fields: ['A', '£1,200.50'] },
      { row: 5, fields: ['B', 'x;y'] },
    ]);
  });

  it('refuses a quote never closed, and an empty file, naming the row', () => {
    expect(() => readCsv('a,b\n1,"open\n2,3')).toThrow(
      new CsvSyntaxError('Row 2 opens a quote that is never closed.', 2),
    );
    expect(() => readCsv('\uFEFF\r\n')).toThrow(CsvSyntaxError);
  });

  it('reads headers as people type them, and dates in both forms', () => {
    expect(columnName(' Child 1 First-Name ')).toBe('child_1_first_name');
    expect(calendarDateFrom('1/2/2013')).toBe('2013-02-01');
    expect(calendarDateFrom('31.12.2024')).toBe('2024-12-31');
    expect(calendarDateFrom('2024-3-9')).toBe('2024-03-09');
    expect(calendarDateFrom('March 3')).toBe('March 3');
  });

  it('reads CR-only rows, drops a byte-order mark met mid-file, and keeps a huge field whole', () => {
    const long = 'x'.repeat(100_000);
    const document = readCsv(`ref,note\r\uFEFFA,"one\rtwo"\r\uFEFFref,note\rB,${long}`);
    expect(document.records).toEqual([
      { row: 2, fields: ['A', 'one\rtwo'] },
      // A quoted new line does not start a row: the spreadsheet shows this one as row 3.
      { row: 3, fields: ['ref', 'note'] },
      { row: 4, fields: ['B', long] },
    ]);
  });

  it('answers a file of only a header with no rows, and refuses a quote left open at the very end', () => {
    expect(readCsv('ref,note\r\n').records).toEqual([]);
    expect(() => readCsv('ref,note\nA,"')).toThrow(new CsvSyntaxError('Row 2 opens a quote that is never closed.', 2));
  });

  it('reads UTF-8 with or without a BOM, and UTF-16 as Excel saves it', () => {
    const csv = 'ref,rate\nA,£45\n';
    expect(csvFileText(Buffer.from(csv))).toBe(csv);
    expect(csvFileText(Buffer.from(`\uFEFF${csv}`))).toBe(`\uFEFF${csv}`);
    expect(csvFileText(Buffer.from(`\uFEFF${csv}`, 'utf16le'))).toBe(`\uFEFF${csv}`);
    const bigEndian = Buffer.from(`\uFEFF${csv}`, 'utf16le').swap16();
    expect(csvFileText(bigEndian)).toBe(`\uFEFF${csv}`);
  });

  it('refuses in words a file that is not UTF-8 text, or holds NULs', () => {
    // £ as Windows-1252 saves it: one byte, 0xA3.
    expect(() => csvFileText(Buffer.from([0x72, 0x65, 0x66, 0x0a, 0xa3, 0x34, 0x35]))).toThrow(/CSV UTF-8/);
    expect(() => csvFileText(Buffer.from('ref\nA\u0000B\n'))).toThrow(/NUL/);
  });
});
