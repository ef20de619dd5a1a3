import { agencyDetails, type InvoiceItem } from '@agency/contracts';
import { formatPounds, invoice, type Pence, timesheet } from '@agency/domain';
import PDFDocument from 'pdfkit';

export type InvoiceDocumentData = {
  reference: string;
  /** YYYY-MM-DD */
  date: string;
  /** YYYY-MM */
  month: string;
  tutor: { name: string; address: string[]; postcode: string; email: string };
  items: InvoiceItem[];
  earningsPence: Pence;
  commissionPence: Pence;
  paidPence: Pence;
  confirmed: boolean;
};

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** The spec's dd MMM yyyy: 2026-03-05 → '05 Mar 2026'. */
export const documentDate = (date: string) =>
  `${date.slice(8, 10)} ${MONTHS[Number(date.slice(5, 7)) - 1]} ${date.slice(0, 4)}`;

function addDays(date: string, days: number): string {
  const day = new Date(`${date}T00:00:00Z`);
  day.setUTCDate(day.getUTCDate() + days);
  return day.toISOString().slice(0, 10);
}

const LEFT = 50;
const RIGHT = 545;
const AMOUNT_WIDTH = 110;

/**
 * The invoice document: the agency invoices the tutor for its commission on the month's
 * earnings. Content streams are left uncompressed: the file stays a few kilobytes, and its
 * text can be searched by tools (and tests) that do not inflate streams.
 */
export function renderInvoiceDocument(data: InvoiceDocumentData): Promise<Buffer> {
  const doc = new PDFDocument({
    size: 'A4',
    margin: LEFT,
    compress: false,
    info: { Title: `Invoice ${data.reference}`, Author: agencyDetails.name, Subject: timesheet.monthName(data.month) },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  const agency = agencyDetails;
  doc.font('Helvetica-Bold').fontSize(22).text('INVOICE', LEFT, 50);
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

  const dueDate = addDays(data.date, agency.paymentTermsDays);
  const facts: [string, string][] = [
    ['Invoice reference', data.reference],
    ['Invoice date', documentDate(data.date)],
    ['Period', timesheet.monthName(data.month)],
    ['Payment due', documentDate(dueDate)],
  ];
  let y = 150;
  for (const [label, value] of facts) {
    doc.font('Helvetica-Bold').fontSize(10).text(label, LEFT, y, { width: 110 });
    doc.font('Helvetica').text(value, LEFT + 115, y);
    y += 16;
  }

  doc.font('Helvetica-Bold').fontSize(10).text('Invoice to', 330, 150);
  doc
    .font('Helvetica')
    .text(
      [data.tutor.name, ...data.tutor.address.filter(Boolean), data.tutor.postcode, data.tutor.email].join('\n'),
      330,
    );

  y = Math.max(doc.y, y) + 30;
  doc.font('Helvetica-Bold').fontSize(10);
  doc.text('No.', LEFT, y, { width: 30 });
  doc.text('Description', LEFT + 35, y);
  doc.text('Amount', RIGHT - AMOUNT_WIDTH, y, { width: AMOUNT_WIDTH, align: 'right' });
  y += 16;
  doc.moveTo(LEFT, y).lineTo(RIGHT, y).stroke();
  y += 8;

  doc.font('Helvetica');
  if (data.items.length === 0) {
    doc.text('No lessons this month', LEFT + 35, y);
    y += 18;
  }
  data.items.forEach((item, index) => {
    doc.text(String(index + 1), LEFT, y, { width: 30 });
    doc.text(invoice.itemDescription(item), LEFT + 35, y);
    doc.text(formatPounds(item.commissionPence), RIGHT - AMOUNT_WIDTH, y, { width: AMOUNT_WIDTH, align: 'right' });
    y += 18;
  });
  doc.moveTo(LEFT, y).lineTo(RIGHT, y).stroke();
  y += 8;

  const totals: [string, Pence][] = [
    ['Total earnings', data.earningsPence],
    ['Total Commission', data.commissionPence],
  ];
  if (data.paidPence > 0) totals.push(['Paid', data.paidPence], ['Balance due', data.commissionPence - data.paidPence]);
  for (const [label, pence] of totals) {
    const bold = label === 'Total Commission' || label === 'Balance due';
    doc.font(bold ? 'Helvetica-Bold' : 'Helvetica');
    doc.text(label, RIGHT - AMOUNT_WIDTH - 160, y, { width: 160, align: 'right' });
    doc.text(formatPounds(pence), RIGHT - AMOUNT_WIDTH, y, { width: AMOUNT_WIDTH, align: 'right' });
    y += 18;
  }

  y += 24;
  const bank = agency.bankAccount;
  doc.font('Helvetica-Bold').text('Payment details', LEFT, y);
  doc
    .font('Helvetica')
    .text(
      [
        `Please pay ${formatPounds(Math.max(data.commissionPence - data.paidPence, 0))} by ${documentDate(dueDate)}, quoting ${data.reference}, to our account:`,
        `${bank.accountName}, ${bank.bank}`,
        `Sort code ${bank.sortCode}    Account number ${bank.accountNumber}`,
      ].join('\n'),
      LEFT,
      y + 16,
      { width: RIGHT - LEFT },
    );
  if (!data.confirmed) {
    doc
      .moveDown()
      .font('Helvetica-Oblique')
      .text('This invoice has not been confirmed by the tutor yet.', { width: RIGHT - LEFT });
  }

  doc.end();
  return done;
}
