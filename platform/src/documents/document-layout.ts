import { createHash } from 'node:crypto';
import type { AgencyDetails } from '@agency/contracts';
import { displayDate, formatPounds, type Pence } from '@agency/domain';
import PDFDocument from 'pdfkit';

const LEFT = 50;
const RIGHT = 545;
const AMOUNT_WIDTH = 110;

type Doc = PDFKit.PDFDocument;

/**
 * The agency's details an issued document prints: its letterhead and its bank account. A renderer
 * is given only these, so whatever it prints is in the content hash (docs/documents.md); a new
 * field to print is added here first.
 */
export type PrintedAgency = Pick<
  AgencyDetails,
  'name' | 'address' | 'postcode' | 'email' | 'phone' | 'accountName' | 'bankName' | 'sortCode' | 'accountNumber'
>;

export const printedAgency = (agency: PrintedAgency): PrintedAgency => ({
  name: agency.name,
  address: agency.address,
  postcode: agency.postcode,
  email: agency.email,
  phone: agency.phone,
  accountName: agency.accountName,
  bankName: agency.bankName,
  sortCode: agency.sortCode,
  accountNumber: agency.accountNumber,
});

/** JSON with every object's keys in code-point order and no undefined member: one text per value. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, member]) => member !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, member]) => `${JSON.stringify(key)}:${canonicalJson(member)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The short content hash a document prints: the first 12 hex digits of SHA-256 over its canonical JSON. */
export const contentHashOf = (content: unknown): string =>
  createHash('sha256').update(canonicalJson(content)).digest('hex').slice(0, 12);

/**
 * An issued document's identity in its bytes: the date it was issued (its CreationDate and
 * ModDate, midnight UTC of that day) and what it prints (`content`, hashed). pdfkit derives the
 * file ID from the info dictionary, which then holds nothing but these, the title and the author:
 * the same content renders to the same bytes at any time on any machine.
 */
export type Issued = { date: string; content: unknown };

/**
 * The parts every invoice document shares (the tutors' commission invoices and the families'
 * invoices and credit notes): the agency's letterhead, the facts, the addressee, the numbered
 * lines, the totals and how to pay. Content streams are left uncompressed: a file stays a few
 * kilobytes, and its text can be searched by tools (and tests) that do not inflate streams.
 * An issued document (`issued`) carries no render time and prints its content hash at the foot
 * of its last page; another (a data export's summary) is dated when it is made.
 */
export function startDocument(info: { title: string; subject?: string; agency: PrintedAgency; issued?: Issued }) {
  const contentHash = info.issued ? contentHashOf(info.issued.content) : undefined;
  const issuedAt = info.issued ? new Date(`${info.issued.date}T00:00:00Z`) : undefined;
  const doc = new PDFDocument({
    size: 'A4',
    margin: LEFT,
    compress: false,
    info: {
      Title: info.title,
      Author: info.agency.name,
      ...(info.subject ? { Subject: info.subject } : {}),
      ...(issuedAt ? { CreationDate: issuedAt, ModDate: issuedAt } : {}),
      ...(contentHash ? { Keywords: `content hash ${contentHash}` } : {}),
    },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  return {
    doc,
    contentHash,
    finish: () => {
      if (contentHash) drawContentHash(doc, contentHash);
      doc.end();
      return done;
    },
  };
}

/** The content hash in small print at the foot of the page, where a printed copy can be read back. */
function drawContentHash(doc: Doc, contentHash: string) {
  const bottom = doc.page.height - doc.page.margins.bottom;
  // Written inside the margin's lower edge: pdfkit starts no new page for text that fits above it.
  doc
    .font('Helvetica')
    .fontSize(7.5)
    .text(`Document check: ${contentHash}`, LEFT, bottom - 12, {
      width: RIGHT - LEFT,
      align: 'right',
      lineBreak: false,
    });
}

/** The title on the left, the agency's name and address on the right. */
export function drawLetterhead(doc: Doc, title: string, agency: PrintedAgency) {
  doc.font('Helvetica-Bold').fontSize(22).text(title, LEFT, 50);
  doc
    .font('Helvetica-Bold')
    .fontSize(11)
    .text(agency.name, 300, 50, { width: RIGHT - 300, align: 'right' })
    .font('Helvetica')
    .fontSize(10)
    .text([...agency.address, agency.postcode, agency.email, agency.phone].join('\n'), {
      width: RIGHT - 300,
      align: 'right',
    });
}

/** Label and value pairs down the left, the addressee on the right; answers where the lines start. */
export function drawFactsAndAddressee(
  doc: Doc,
  facts: [label: string, value: string][],
  addressee: { label: string; lines: string[] },
): number {
  let y = 150;
  for (const [label, value] of facts) {
    doc.font('Helvetica-Bold').fontSize(10).text(label, LEFT, y, { width: 110 });
    doc.font('Helvetica').text(value, LEFT + 115, y);
    y += 16;
  }
  doc.font('Helvetica-Bold').fontSize(10).text(addressee.label, 330, 150);
  doc.font('Helvetica').text(addressee.lines.filter(Boolean).join('\n'), 330);
  return Math.max(doc.y, y) + 30;
}

/** The numbered lines with their amounts, between two rules; answers the y below them. */
export function drawLines(
  doc: Doc,
  top: number,
  lines: { description: string; amountPence: Pence }[],
  emptyText: string,
): number {
  let y = top;
  doc.font('Helvetica-Bold').fontSize(10);
  doc.text('No.', LEFT, y, { width: 30 });
  doc.text('Description', LEFT + 35, y);
  doc.text('Amount', RIGHT - AMOUNT_WIDTH, y, { width: AMOUNT_WIDTH, align: 'right' });
  y += 16;
  doc.moveTo(LEFT, y).lineTo(RIGHT, y).stroke();
  y += 8;
  doc.font('Helvetica');
  if (lines.length === 0) {
    doc.text(emptyText, LEFT + 35, y);
    y += 18;
  }
  lines.forEach((line, index) => {
    doc.text(String(index + 1), LEFT, y, { width: 30 });
    doc.text(line.description, LEFT + 35, y, { width: RIGHT - AMOUNT_WIDTH - LEFT - 45 });
    doc.text(formatPounds(line.amountPence), RIGHT - AMOUNT_WIDTH, y, { width: AMOUNT_WIDTH, align: 'right' });
    y += 18;
  });
  doc.moveTo(LEFT, y).lineTo(RIGHT, y).stroke();
  return y + 8;
}

/** Small notes under the lines (how an amount was worked out), one paragraph each. Answers the y below them. */
export function drawNotes(doc: Doc, top: number, notes: string[]): number {
  if (notes.length === 0) return top;
  doc.font('Helvetica').fontSize(8.5);
  let y = top;
  for (const note of notes) {
    doc.text(note, LEFT + 35, y, { width: RIGHT - LEFT - 35 });
    y = doc.y + 4;
  }
  doc.fontSize(10);
  return y + 6;
}

/** Totals right-aligned under the lines; `bold` ones stand out. Answers the y below them. */
export function drawTotals(doc: Doc, top: number, totals: { label: string; pence: Pence; bold?: boolean }[]): number {
  let y = top;
  for (const { label, pence, bold } of totals) {
    doc.font(bold ? 'Helvetica-Bold' : 'Helvetica');
    doc.text(label, RIGHT - AMOUNT_WIDTH - 160, y, { width: 160, align: 'right' });
    doc.text(formatPounds(pence), RIGHT - AMOUNT_WIDTH, y, { width: AMOUNT_WIDTH, align: 'right' });
    y += 18;
  }
  return y;
}

/** How to pay: the amount, the date it is due, the reference to quote and the agency's account. */
export function drawPaymentDetails(
  doc: Doc,
  top: number,
  due: { amountPence: Pence; dueDate: string; reference: string },
  agency: PrintedAgency,
) {
  const y = top + 24;
  doc.font('Helvetica-Bold').text('Payment details', LEFT, y);
  doc
    .font('Helvetica')
    .text(
      [
        `Please pay ${formatPounds(Math.max(due.amountPence, 0))} by ${displayDate(due.dueDate)}, quoting ${due.reference}, to our account:`,
        `${agency.accountName}, ${agency.bankName}`,
        `Sort code ${agency.sortCode}    Account number ${agency.accountNumber}`,
      ].join('\n'),
      LEFT,
      y + 16,
      { width: RIGHT - LEFT },
    );
}

/** A closing remark in italics under what came before. */
export function drawRemark(doc: Doc, text: string) {
  doc
    .moveDown()
    .font('Helvetica-Oblique')
    .text(text, LEFT, undefined, { width: RIGHT - LEFT });
}
