import type { LessonDetails, PayStatementLine } from '@agency/contracts';
import type { Pence } from '../shared/money';
import type { IssuedStatement } from './pay-statement';

/**
 * The pay rules of a tutor's monthly statement (docs/money-models.md, "Pay statements"). A
 * statement looks at the tutor's lessons sold by the agency (`agency-sells-tuition` on their date)
 * in its month and the `PAY_WINDOW_MONTHS` before, and at the tutor's statements of those months:
 * - a lesson is paid its earnings less the agency's share (its commission as recorded on it);
 * - a lesson whose pay waits for its family invoice to be paid is listed as held, outside the
 *   total, and paid (`released`) on the first statement after the family paid;
 * - a lesson recorded, changed or removed after a statement covered its month is an `adjustment`:
 *   what it is to be paid now less what earlier statements paid for it;
 * - a statement whose total is below 0 carries it to the tutor's next one; nothing is paid on it.
 */
export const PAY_WINDOW_MONTHS = 12;

/** A lesson the statement may pay: its values on the timesheet, its month, and whether its pay waits. */
export type PayLesson = LessonDetails & { month: string; held: boolean; clientId: string };

/** 'yyyy-mm' moved by `by` months. */
export function addMonths(month: string, by: number): string {
  const index = Number(month.slice(0, 4)) * 12 + Number(month.slice(5, 7)) - 1 + by;
  return `${String(Math.floor(index / 12)).padStart(4, '0')}-${String((index % 12) + 1).padStart(2, '0')}`;
}

/** The months a statement of `month` looks at, the oldest first, `month` last. */
export const windowOf = (month: string): string[] =>
  Array.from({ length: PAY_WINDOW_MONTHS + 1 }, (_, i) => addMonths(month, i - PAY_WINDOW_MONTHS));

export const payOf = (lesson: Pick<LessonDetails, 'amountPence' | 'commissionPence'>): Pence =>
  lesson.amountPence - lesson.commissionPence;

/** What earlier statements did with one lesson. */
type Ledger = { paidPence: Pence; everPaid: boolean; wasHeld: boolean; last: PayStatementLine };

function ledgerOf(earlier: readonly IssuedStatement[], from: string): Map<string, Ledger> {
  const ledger = new Map<string, Ledger>();
  for (const statement of [...earlier].sort((a, b) => (a.month < b.month ? -1 : 1))) {
    for (const line of statement.lines) {
      if (line.lessonMonth < from) continue;
      const known = ledger.get(line.lessonId) ?? { paidPence: 0, everPaid: false, wasHeld: false, last: line };
      ledger.set(
        line.lessonId,
        line.kind === 'held'
          ? { ...known, wasHeld: !known.everPaid, last: line }
          : { paidPence: known.paidPence + line.linePence, everPaid: true, wasHeld: false, last: line },
      );
    }
  }
  return ledger;
}

const byDate = (a: { date: string; lessonId: string }, b: { date: string; lessonId: string }) =>
  a.date === b.date ? (a.lessonId < b.lessonId ? -1 : 1) : a.date < b.date ? -1 : 1;

/**
 * The lines of the tutor's statement of `month` and what it carries, or null when it would say
 * nothing (no line, nothing carried): then no statement is issued. `lessons` are the tutor's
 * lessons sold by the agency in the window (months after `month` are ignored); `earlier` the
 * tutor's statements issued for months before `month`.
 */
export function statementLines(input: {
  month: string;
  lessons: readonly PayLesson[];
  earlier: readonly IssuedStatement[];
}): { lines: PayStatementLine[]; carriedPence: Pence } | null {
  const { month } = input;
  const [from] = windowOf(month) as [string];
  const earlier = input.earlier.filter((statement) => statement.month < month && statement.month >= from);
  const ledger = ledgerOf(earlier, from);
  const coveredUpTo = earlier.reduce((latest, statement) => (statement.month > latest ? statement.month : latest), '');
  const lines: PayStatementLine[] = [];
  const current = new Set<string>();
  for (const lesson of [...input.lessons].filter((l) => l.month >= from && l.month <= month).sort(byDate)) {
    current.add(lesson.lessonId);
    const known = ledger.get(lesson.lessonId);
    const pay = payOf(lesson);
    const line = (kind: PayStatementLine['kind'], paidBeforePence: Pence): PayStatementLine => ({
      kind,
      lessonId: lesson.lessonId,
      lessonMonth: lesson.month,
      engagementId: lesson.engagementId,
      studentId: lesson.studentId,
      clientId: lesson.clientId,
      date: lesson.date,
      duration: lesson.duration,
      amountPence: lesson.amountPence,
      sharePence: lesson.commissionPence,
      payPence: pay,
      paidBeforePence,
      linePence: kind === 'held' ? 0 : pay - paidBeforePence,
      removed: false,
    });
    if (known?.everPaid) {
      // Paid before: only a difference is owed, and a paid lesson is never held again.
      if (pay !== known.paidPence) lines.push(line('adjustment', known.paidPence));
    } else if (lesson.held) {
      lines.push(line('held', 0));
    } else if (known?.wasHeld) {
      lines.push(line('released', 0));
    } else {
      // Never on a statement: late if a statement already covered its month.
      lines.push(line(lesson.month <= coveredUpTo ? 'adjustment' : 'lesson', 0));
    }
  }
  const removed = [...ledger.entries()]
    .filter(([lessonId, known]) => !current.has(lessonId) && known.everPaid && known.paidPence !== 0)
    .map(([, known]) => known);
  for (const { last, paidPence } of removed.sort((a, b) => byDate(a.last, b.last))) {
    lines.push({
      ...last,
      kind: 'adjustment',
      duration: 0,
      amountPence: 0,
      sharePence: 0,
      payPence: 0,
      paidBeforePence: paidPence,
      linePence: -paidPence,
      removed: true,
    });
  }
  const latest = [...earlier].sort((a, b) => (a.month < b.month ? -1 : 1)).at(-1);
  const carriedPence = latest && latest.totalPayPence < 0 ? latest.totalPayPence : 0;
  if (lines.length === 0 && carriedPence === 0) return null;
  return { lines: lines.sort(byDate), carriedPence };
}

/** A statement's reference: 'PS-' the tutor's invoice prefix and the month ('PS-ABC-2026-03'). */
export const payStatementReference = (invoicePrefix: string, month: string) => `PS-${invoicePrefix}-${month}`;
