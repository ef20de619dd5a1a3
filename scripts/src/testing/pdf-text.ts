/**
 * Enough of a PDF reader for tests of documents made with uncompressed content streams: checks
 * the file's frame (header, cross-reference table, trailer) and returns the text shown by its
 * TJ operators, one line per operator. Standard-font text is hex strings in WinAnsi, which
 * agrees with Latin-1 for every character an invoice prints (£ included).
 */
export function pdfText(bytes: Uint8Array): string {
  const raw = Buffer.from(bytes).toString('latin1');
  if (!raw.startsWith('%PDF-')) throw new Error('not a PDF: no %PDF- header');
  if (!/startxref\s+\d+\s+%%EOF\s*$/.test(raw)) throw new Error('not a PDF: no startxref and %%EOF at the end');
  const xrefAt = Number(/startxref\s+(\d+)/.exec(raw.slice(raw.lastIndexOf('startxref')))?.[1]);
  if (raw.slice(xrefAt, xrefAt + 4) !== 'xref')
    throw new Error('not a PDF: startxref does not point at the xref table');
  if (/\/Filter/.test(raw)) throw new Error('the content streams are compressed; pdfText reads only plain ones');
  const lines: string[] = [];
  for (const operator of raw.matchAll(/\[((?:<[0-9a-fA-F]*>|[-\d.\s])*)\]\s*TJ/g)) {
    const hex = [...operator[1]!.matchAll(/<([0-9a-fA-F]*)>/g)].map((m) => m[1]).join('');
    lines.push(Buffer.from(hex, 'hex').toString('latin1'));
  }
  return lines.join('\n');
}
