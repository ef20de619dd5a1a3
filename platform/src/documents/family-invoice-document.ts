import type { AgencyDetails, FamilyBilling, FamilyInvoiceLine } from '@agency/contracts';
import { displayDate, type Pence } from '@agency/domain';
import {
  drawFactsAndAddressee,
  drawLetterhead,
  drawLines,
  drawPaymentDetails,
  drawRemark,
  drawTotals,
  startDocument,
} from './document-layout';

export type FamilyDocumentData = {
  kind: 'invoice' | 'credit note';
  reference: string;
  date: string;
  /** An invoice's payment date; a credit note names the invoice it credits instead. */
  dueDate: string;
  creditedReference?: string;
  billing: FamilyBilling;
  lines: FamilyInvoiceLine[];
  totalPence: Pence;
  paidPence: Pence;
  /** An invoice that was credited says so (the document itself is never edited). */
  creditedBy?: string;
};

/**
 * A family's invoice or credit note: the agency's letterhead, the reference, the family's
 * billing details, the lines and the total, and (on an invoice) how to pay. Rendered by the
 * query side for `GET /api/family-invoices/doc/{id}` and by the command side for the e-mail,
 * from the same data, so both are the same document.
 */
export function renderFamilyDocument(data: FamilyDocumentData, agency: AgencyDetails): Promise<Buffer> {
  const invoice = data.kind === 'invoice';
  const title = invoice ? 'INVOICE' : 'CREDIT NOTE';
  const { doc, finish } = startDocument({ title: `${invoice ? 'Invoice' : 'Credit note'} ${data.reference}`, agency });
  drawLetterhead(doc, title, agency);
  const facts: [string, string][] = invoice
    ? [
        ['Invoice reference', data.reference],
        ['Invoice date', displayDate(data.date)],
        ['Payment due', displayDate(data.dueDate)],
      ]
    : [
        ['Credit note', data.reference],
        ['Date', displayDate(data.date)],
        ['Credits invoice', data.creditedReference ?? ''],
      ];
  const { name, address, postcode, email } = data.billing;
  let y = drawFactsAndAddressee(doc, facts, {
    label: invoice ? 'Invoice to' : 'Credit to',
    lines: [name, ...address, postcode, email],
  });
  y = drawLines(doc, y, data.lines, 'Nothing to invoice');
  // A discount (workshop invoices) is what the lines add up to beyond the total.
  const discountPence = data.lines.reduce((sum, line) => sum + line.amountPence, 0) - data.totalPence;
  const totals = [
    ...(discountPence > 0 ? [{ label: 'Discount', pence: -discountPence, bold: false }] : []),
    { label: invoice ? 'Total' : 'Total credited', pence: data.totalPence, bold: true },
  ];
  const owed = data.creditedBy ? 0 : data.totalPence - data.paidPence;
  if (invoice && data.paidPence > 0) totals.push({ label: 'Paid', pence: data.paidPence, bold: false });
  if (invoice && data.paidPence > 0) totals.push({ label: 'Balance due', pence: owed, bold: true });
  y = drawTotals(doc, y, totals);
  if (invoice && !data.creditedBy) {
    drawPaymentDetails(doc, y, { amountPence: owed, dueDate: data.dueDate, reference: data.reference }, agency);
  }
  if (data.creditedBy) drawRemark(doc, `This invoice was cancelled by credit note ${data.creditedBy}.`);
  if (!invoice) drawRemark(doc, `Nothing is owed on invoice ${data.creditedReference ?? ''} any more.`);
  return finish();
}
