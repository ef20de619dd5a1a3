import type { PayStatementLine } from '@agency/contracts';
import { displayDate, formatPounds, type Pence, timesheet, toHours } from '@agency/domain';
import {
  drawFactsAndAddressee,
  drawLetterhead,
  drawLines,
  drawNotes,
  drawRemark,
  drawTotals,
  type PrintedAgency,
  printedAgency,
  startDocument,
} from './document-layout';

/** A line in words, the child named: what the statement page and its PDF say of it. */
export function describeLine(line: PayStatementLine, child: string): string {
  const lesson = `${displayDate(line.date)}, ${child}`;
  const worked = `${toHours(line.duration)} h, ${formatPounds(line.amountPence)} less the agency’s share ${formatPounds(line.sharePence)}`;
  switch (line.kind) {
    case 'lesson':
      return `${lesson}: ${worked}`;
    case 'held':
      return `${lesson}: ${worked}; held until the family pays its invoice`;
    case 'released':
      return `${lesson}: ${worked}; held before, its family has now paid`;
    default:
      return line.removed
        ? `${lesson}: removed after ${formatPounds(line.paidBeforePence)} was paid for it`
        : `${lesson}: recorded or changed after its statement (${worked}); pay ${formatPounds(line.payPence)}, paid before ${formatPounds(line.paidBeforePence)}`;
  }
}

export type PayStatementDocumentData = {
  reference: string;
  /** YYYY-MM-DD */
  date: string;
  /** YYYY-MM */
  month: string;
  tutor: { name: string; address: string[]; postcode: string; email: string };
  lines: PayStatementLine[];
  /** Each child's name by id, as the family's stream said when the statement was issued. */
  children: Record<string, string>;
  carriedPence: Pence;
  totalPayPence: Pence;
};

/** What a pay statement prints, as its content hash covers it (docs/documents.md). */
export const payStatementDocumentContent = (data: PayStatementDocumentData, agency: PrintedAgency) => ({
  document: 'pay statement',
  ...data,
  agency: printedAgency(agency),
});

/**
 * A tutor's pay statement as issued (docs/money-models.md, "Pay statements"): the agency's
 * letterhead, the tutor, a line per lesson paid or adjusted (its amount and the agency's share), the
 * held lessons as notes, what is carried and the total pay. Whether it was confirmed or paid since
 * is on the statement's page, never in these bytes (docs/documents.md).
 */
export function renderPayStatement(data: PayStatementDocumentData, agency: PrintedAgency): Promise<Buffer> {
  const period = timesheet.monthName(data.month);
  const { doc, finish } = startDocument({
    title: `Pay statement ${data.reference}`,
    subject: period,
    agency,
    issued: { date: data.date, content: payStatementDocumentContent(data, agency) },
  });
  drawLetterhead(doc, 'PAY STATEMENT', agency);
  const childOf = (line: PayStatementLine) => data.children[line.studentId] ?? '';
  let y = drawFactsAndAddressee(
    doc,
    [
      ['Statement', data.reference],
      ['Date', displayDate(data.date)],
      ['Period', period],
    ],
    { label: 'Pay to', lines: [data.tutor.name, ...data.tutor.address, data.tutor.postcode, data.tutor.email] },
  );
  const paid = data.lines.filter((line) => line.kind !== 'held');
  y = drawLines(
    doc,
    y,
    paid.map((line) => ({ description: describeLine(line, childOf(line)), amountPence: line.linePence })),
    'No lesson is paid on this statement',
  );
  const held = data.lines.filter((line) => line.kind === 'held');
  y = drawNotes(
    doc,
    y,
    held.map((line) => `Held: ${describeLine(line, childOf(line))} (pay ${formatPounds(line.payPence)}).`),
  );
  const totals: { label: string; pence: Pence; bold?: boolean }[] = [];
  if (data.carriedPence !== 0) totals.push({ label: 'Carried from the last statement', pence: data.carriedPence });
  totals.push({ label: 'Total pay', pence: data.totalPayPence, bold: true });
  drawTotals(doc, y, totals);
  if (data.totalPayPence < 0) {
    drawRemark(doc, `${formatPounds(-data.totalPayPence)} is carried to your next statement.`);
  }
  return finish();
}
