import type { EngagementEvent } from '@agency/contracts';
import { type EngagementSummary, termsChangedFrom } from '../engagement/engagement';
import { displayDate } from '../shared/calendar';
import { DomainError } from '../shared/decider';
import { lessonsToReprice, monthName, type TimesheetCommand, type TimesheetState } from './timesheet';

/**
 * A change of an engagement's terms from a date reprices its lessons on and after that date, in
 * every month not yet invoiced; a change that would reprice lessons of an invoiced month is
 * refused before it is recorded (docs/reactors.md, `lesson-repricing`). These are its rules: the
 * route checks them before the change's one write, the reactor carries them out month by month.
 */

/** 'YYYY-MM' → the month after it. */
export function monthAfter(month: string): string {
  const [year, number] = [Number(month.slice(0, 4)), Number(month.slice(5, 7))];
  return number === 12 ? `${year + 1}-01` : `${year}-${String(number + 1).padStart(2, '0')}`;
}

/**
 * The months whose timesheets a change of terms from `from` is checked and carried out in: every
 * month from its own to the month after `today`'s, read from their streams (lessons are being
 * entered there now), and any later month the lessons read model knows to hold the engagement's
 * lessons (`withLessons`: lessons entered ahead, long since shown there). In order, each once.
 */
export function monthsToReprice(from: string, today: string, withLessons: readonly string[]): string[] {
  const first = from.slice(0, 7);
  const current = today.slice(0, 7);
  const months = new Set<string>();
  for (let month = first; month <= current || month === first; month = monthAfter(month)) months.add(month);
  if (first <= current) months.add(monthAfter(current));
  for (const month of withLessons) if (month >= first) months.add(month);
  return [...months].sort();
}

/** A month a change would reprice lessons in, but whose invoice has locked them (`reference` null: being generated). */
export type InvoicedMonth = { month: string; reference: string | null };

const inWords = (items: readonly string[]) =>
  items.length < 2 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;

/**
 * The refusal of a change of terms that reaches into invoiced months: it names each month and its
 * invoice, and the first date from which the change would leave them as invoiced. An issued
 * invoice never changes (a later release may bill the difference as adjustment lines).
 */
export function invoicedMonthsRefusal(invoiced: readonly InvoicedMonth[]): DomainError {
  const months = [...invoiced].sort((a, b) => (a.month < b.month ? -1 : 1));
  const named = months.map(
    ({ month, reference }) => `${monthName(month)} (${reference ? `invoice ${reference}` : 'being invoiced'})`,
  );
  const firstFree = `${monthAfter(months.at(-1)!.month)}-01`;
  return new DomainError(
    'locked',
    `This change would reprice lessons of ${inWords(named)}, which ${months.length > 1 ? 'are' : 'is'} invoiced, and an invoice never changes. Make the change from ${displayDate(firstFree)} or later, or first withdraw ${months.length > 1 ? 'those invoices' : 'that invoice'} if not yet confirmed.`,
    { startDate: `Invoiced before ${displayDate(firstFree)}` },
  );
}

/**
 * What follows in one month from an engagement's change (`change`, one of its events): its
 * lessons on or after the change's date priced by the engagement as it is now (`engagement`,
 * read from its stream, so a later change of terms is never undone), or nothing when no lesson's
 * price changes. Nor in a month invoiced after the change was decided (the two raced): its invoice
 * froze the lessons as they were.
 */
export function repricingAfter(
  change: EngagementEvent,
  engagement: EngagementSummary | undefined,
  month: string,
  sheet: TimesheetState,
): TimesheetCommand | undefined {
  const from = termsChangedFrom([change]);
  if (!from || !engagement || sheet.status === 'locked') return undefined;
  if (lessonsToReprice(sheet, engagement, from).length === 0) return undefined;
  return { type: 'RepriceLessons', tutorId: engagement.tutorId, month, engagement, from };
}

/**
 * Whether an open month holds lessons its engagements' periods now price otherwise: a change of
 * terms whose repricing has not reached them yet (its reactor is behind), which an invoice must
 * wait for. Lessons priced before repricing followed changes may stay so (nothing reprices them).
 */
export function awaitsRepricing(sheet: TimesheetState, engagements: readonly EngagementSummary[]): boolean {
  if (sheet.status === 'locked' || sheet.lessons.size === 0) return false;
  return engagements.some((engagement) => lessonsToReprice(sheet, engagement, engagement.startDate).length > 0);
}
