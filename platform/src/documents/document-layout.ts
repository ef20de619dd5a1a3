import type { AgencyDetails } from '@agency/contracts';
import { displayDate, formatPounds, type Pence } from '@agency/domain';
import PDFDocument from 'pdfkit';

const LEFT = 50;
const RIGHT = 545;
const AMOUNT_WIDTH = 110;

type Doc = PDFKit.PDFDocument;

/**
 * The parts every invoice document shares (the tutors' commission invoices and the families'
 * invoices and credit notes): the agency's letterhead, the facts, the addressee, the numbered
 * lines, the totals and how to pay. Content streams are left uncompressed: a file stays a few
 * kilobytes, and its text can be searched by tools (and tests) that do not inflate streams.
 */
export function startDocument(info: { title: string; subject?: string; agency: AgencyDetails }) {
  const doc = new PDFDocument({
    size: 'A4',
    margin: LEFT,
    compress: false,
    info: { Title: info.title, Author: info.agency.name, ...(info.subject ? { Subject: info.subject } : {}) },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  return {
    doc,
    finish: () => {
      doc.end();
      return done;
    },
  };
}

/** The title on the left, the agency's name and address on the right. */
export function drawLetterhead(doc: Doc, title: string, agency: AgencyDetails) {
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
  agency: AgencyDetails,
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
