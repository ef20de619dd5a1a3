import type { FamilyBilling, FamilyInvoiceLine } from '@agency/contracts';
import { displayDate, formatPounds, type Pence } from '@agency/domain';
import {
  drawFactsAndAddressee,
  drawLetterhead,
  drawLines,
  drawPaymentDetails,
  drawRemark,
  drawTotals,
  type PrintedAgency,
  printedAgency,
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
  /** A lessons invoice's children and tutors by id, as its event names them (docs/money-models.md). */
  names?: Record<string, string>;
  totalPence: Pence;
};

/**
 * What a family document prints, as its content hash covers it: its data and the agency's
 * printed details. Nothing that changes after issue (paid, credited) is in it: the screens say
 * that (docs/documents.md).
 */
export const familyDocumentContent = (data: FamilyDocumentData, agency: PrintedAgency) => ({
  document: 'family',
  ...data,
  agency: printedAgency(agency),
});

/**
 * A family's invoice or credit note as issued: the agency's letterhead, the reference, the
 * family's billing details, the lines and the total, and (on an invoice) how to pay. Rendered
 * from its events (platform/src/documents/issued-documents.ts) for `GET
 * /api/family-invoices/doc/{id}`, the e-mail and `npm run verify`: the same bytes each time.
 */
export function renderFamilyDocument(data: FamilyDocumentData, agency: PrintedAgency): Promise<Buffer> {
  const invoice = data.kind === 'invoice';
  const title = invoice ? 'INVOICE' : 'CREDIT NOTE';
  const { doc, finish } = startDocument({
    title: `${invoice ? 'Invoice' : 'Credit note'} ${data.reference}`,
    agency,
    issued: { date: data.date, content: familyDocumentContent(data, agency) },
  });
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
  y = drawLines(doc, y, printedLines(data), 'Nothing to invoice');
  // A discount (workshop invoices) is what the lines add up to beyond the total.
  const discountPence =
    data.lines.reduce((sum, line) => sum + line.amountPence + (line.vatPence ?? 0), 0) - data.totalPence;
  const totals = [
    ...(discountPence > 0 ? [{ label: 'Discount', pence: -discountPence, bold: false }] : []),
    ...vatTotals(data.lines),
    { label: invoice ? 'Total' : 'Total credited', pence: data.totalPence, bold: true },
  ];
  y = drawTotals(doc, y, totals);
  if (invoice) {
    drawPaymentDetails(
      doc,
      y,
      { amountPence: data.totalPence, dueDate: data.dueDate, reference: data.reference },
      agency,
    );
  }
  if (!invoice) drawRemark(doc, `Nothing is owed on invoice ${data.creditedReference ?? ''} any more.`);
  return finish();
}

/**
 * A lessons invoice's line names its lesson: the date, the child and tutor, what it bills, and its
 * VAT (docs/money-models.md, "Family lesson invoices"); other lines print as they are.
 */
function printedLines(data: FamilyDocumentData): { description: string; amountPence: Pence }[] {
  const names = data.names ?? {};
  return data.lines.map(({ description, amountPence, vatPence = 0, lesson }) => {
    if (!lesson) return { description, amountPence };
    const who = [names[lesson.studentId], names[lesson.tutorId] && `with ${names[lesson.tutorId]}`].filter(Boolean);
    const vat = lesson.vatRateBp > 0 ? ` (VAT ${formatPounds(vatPence)})` : '';
    return { description: `${displayDate(lesson.date)} ${who.join(' ')}: ${description}${vat}`, amountPence };
  });
}

/** Net and VAT above the total, when any line was charged VAT. */
function vatTotals(lines: readonly FamilyInvoiceLine[]) {
  const vatPence = lines.reduce((sum, line) => sum + (line.vatPence ?? 0), 0);
  if (!lines.some((line) => line.lesson && line.lesson.vatRateBp > 0)) return [];
  const netPence = lines.reduce((sum, line) => sum + line.amountPence, 0);
  return [
    { label: 'Net', pence: netPence, bold: false },
    { label: 'VAT', pence: vatPence, bold: false },
  ];
}
