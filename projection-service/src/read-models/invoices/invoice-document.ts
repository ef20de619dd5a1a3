import type { AgencyDetails, InvoiceItem } from '@agency/contracts';
import { addDays, displayDate, invoice, type Pence, timesheet } from '@agency/domain';
import { commissionNote } from '@agency/domain/invoice/commission-note';
import {
  drawFactsAndAddressee,
  drawLetterhead,
  drawLines,
  drawNotes,
  drawPaymentDetails,
  drawRemark,
  drawTotals,
  startDocument,
} from '@agency/platform/documents/document-layout';

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

/**
 * The invoice document: the agency invoices the tutor for its commission on the month's
 * earnings, on the agency's letterhead and into its account as the agency's details say now.
 */
export function renderInvoiceDocument(data: InvoiceDocumentData, agency: AgencyDetails): Promise<Buffer> {
  const { doc, finish } = startDocument({
    title: `Invoice ${data.reference}`,
    subject: timesheet.monthName(data.month),
    agency,
  });
  drawLetterhead(doc, 'INVOICE', agency);
  const dueDate = addDays(data.date, agency.paymentTermsDays);
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
  const totals = [
    { label: 'Total earnings', pence: data.earningsPence },
    { label: 'Total Commission', pence: data.commissionPence, bold: true },
  ];
  if (data.paidPence > 0) {
    totals.push(
      { label: 'Paid', pence: data.paidPence },
      { label: 'Balance due', pence: data.commissionPence - data.paidPence, bold: true },
    );
  }
  y = drawTotals(doc, y, totals);
  drawPaymentDetails(
    doc,
    y,
    { amountPence: data.commissionPence - data.paidPence, dueDate, reference: data.reference },
    agency,
  );
  if (!data.confirmed) drawRemark(doc, 'This invoice has not been confirmed by the tutor yet.');
  return finish();
}
