import type { InvoiceItem } from '@agency/contracts';
import { displayDate, invoice, type Pence, timesheet } from '@agency/domain';
import { commissionNote } from '@agency/domain/invoice/commission-note';
import {
  drawFactsAndAddressee,
  drawLetterhead,
  drawLines,
  drawNotes,
  drawPaymentDetails,
  drawTotals,
  type PrintedAgency,
  printedAgency,
  startDocument,
} from './document-layout';

export type InvoiceDocumentData = {
  reference: string;
  /** YYYY-MM-DD */
  date: string;
  /** YYYY-MM */
  month: string;
  /** YYYY-MM-DD: the invoice date and the agency's payment terms when it was issued. */
  dueDate: string;
  tutor: { name: string; address: string[]; postcode: string; email: string };
  items: InvoiceItem[];
  earningsPence: Pence;
  commissionPence: Pence;
};

/** What a tutor's invoice prints, as its content hash covers it (docs/documents.md). */
export const invoiceDocumentContent = (data: InvoiceDocumentData, agency: PrintedAgency) => ({
  document: 'tutor invoice',
  ...data,
  agency: printedAgency(agency),
});

/**
 * The invoice document as issued: the agency invoices the tutor for its commission on the
 * month's earnings, on the agency's letterhead and into its account as the agency's details
 * said when it was generated. Whether it was confirmed or paid since is on the invoice's page,
 * never in these bytes (docs/documents.md).
 */
export function renderInvoiceDocument(data: InvoiceDocumentData, agency: PrintedAgency): Promise<Buffer> {
  const { doc, finish } = startDocument({
    title: `Invoice ${data.reference}`,
    subject: timesheet.monthName(data.month),
    agency,
    issued: { date: data.date, content: invoiceDocumentContent(data, agency) },
  });
  drawLetterhead(doc, 'INVOICE', agency);
  const { dueDate } = data;
  let y = drawFactsAndAddressee(
    doc,
    [
      ['Invoice reference', data.reference],
      ['Invoice date', displayDate(data.date)],
      ['Period', timesheet.monthName(data.month)],
      ['Payment due', displayDate(dueDate)],
    ],
    {
      label: 'Invoice to',
      lines: [data.tutor.name, ...data.tutor.address, data.tutor.postcode, data.tutor.email],
    },
  );
  y = drawLines(
    doc,
    y,
    data.items.map((item) => ({ description: invoice.itemDescription(item), amountPence: item.commissionPence })),
    'No lessons this month',
  );
  // Each item's commission is the sum of its lessons', each rounded to the penny: said under the lines.
  y = drawNotes(doc, y, data.items.map(commissionNote));
  y = drawTotals(doc, y, [
    { label: 'Total earnings', pence: data.earningsPence },
    { label: 'Total Commission', pence: data.commissionPence, bold: true },
  ]);
  drawPaymentDetails(doc, y, { amountPence: data.commissionPence, dueDate, reference: data.reference }, agency);
  return finish();
}
