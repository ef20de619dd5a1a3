import type {
  BilledLesson,
  FamilyInvoiceEvent,
  FamilyInvoiceLine,
  LessonDetails,
  TutorBilledLesson,
} from '@agency/contracts';
import type { AgencyTerms } from '../money-model/money-model';
import { type Decider, DomainError } from '../shared/decider';
import { checkDate, checkId } from '../shared/limits';
import { type BasisPoints, divideHalfUp, formatPounds, type Pence, toHours } from '../shared/money';
import type { Actor } from '../timesheet/timesheet';
import type { IssuedInvoice } from './family-invoice';

/**
 * A family's monthly lessons invoice (docs/money-models.md, "Family lesson invoices"): a line per
 * lesson of the month the agency bills the family for (`agency-sells-tuition`: the lesson's amount
 * and VAT; `introduction`: the agency's fee, the lesson's commission, and VAT), and an adjustment
 * line per lesson whose value changed since an invoice billed it (or that was recorded after its
 * month was billed): the difference and its VAT. Issued invoices never change.
 */

/** VAT on an amount at a rate in basis points, to the penny, half away from zero (a negative adjustment's too). */
export const vatOf = (amountPence: Pence, rateBp: BasisPoints): Pence => divideHalfUp(amountPence * rateBp, 10_000);

/** A lesson as its timesheet stream holds it now, with its tutor and the terms in force on its date. */
export type LessonNow = { lesson: LessonDetails; tutorId: string; terms: AgencyTerms };

/** What a lesson is worth on its family's invoice under its model; null: the family is not billed for it. */
export function worthOf({ lesson, terms }: LessonNow): {
  kind: 'tuition' | 'introduction-fee';
  model: BilledLesson['model'];
  amountPence: Pence;
} | null {
  if (terms.model === 'agency-sells-tuition')
    return { kind: 'tuition', model: terms.model, amountPence: lesson.amountPence };
  if (terms.model === 'introduction')
    return { kind: 'introduction-fee', model: terms.model, amountPence: lesson.commissionPence };
  return null;
}

/** What a lesson has been billed so far: its lines' amounts and VAT summed, and the latest line naming it. */
export type Billed = { amountPence: Pence; vatPence: Pence; lesson: BilledLesson };

/** The family's issued lessons invoices that were not credited, summed per lesson. */
export function billedSoFar(invoices: readonly Pick<IssuedInvoice, 'lines'>[]): Map<string, Billed> {
  const billed = new Map<string, Billed>();
  for (const invoice of invoices) {
    for (const line of invoice.lines) {
      if (!line.lesson) continue;
      const before = billed.get(line.lesson.lessonId);
      billed.set(line.lesson.lessonId, {
        amountPence: (before?.amountPence ?? 0) + line.amountPence,
        vatPence: (before?.vatPence ?? 0) + (line.vatPence ?? 0),
        lesson: line.lesson,
      });
    }
  }
  return billed;
}

const hours = (duration: number) => `${toHours(duration)} h`;

function describe(kind: BilledLesson['kind'], lesson: Omit<BilledLesson, 'kind'>, change?: string): string {
  if (kind === 'tuition') return `Tuition, ${hours(lesson.duration)} at ${formatPounds(lesson.ratePence)}/h`;
  if (kind === 'introduction-fee') return `Introduction fee for a ${hours(lesson.duration)} lesson`;
  return `Adjustment: lesson of ${lesson.date} ${change}`;
}

const byDateThenId = (a: { lesson?: BilledLesson | null }, b: { lesson?: BilledLesson | null }) => {
  const [x, y] = [a.lesson, b.lesson];
  if (!x || !y) return 0;
  if (x.date !== y.date) return x.date < y.date ? -1 : 1;
  return x.lessonId < y.lessonId ? -1 : x.lessonId > y.lessonId ? 1 : 0;
};

/**
 * The lines of a family's lessons invoice for `month`. `lessons` are the family's lessons now, in
 * every timesheet the caller read: the month's, and every month that holds a lesson `billed` names
 * (a billed lesson missing from them counts as removed). A lesson of `month` never billed gets its
 * line; any other lesson whose value differs from what it was billed gets an adjustment line for the
 * difference, with the difference's VAT at its date's rate. Lines by date, adjustments after.
 */
export function lessonInvoiceLines(
  month: string,
  lessons: readonly LessonNow[],
  billed: ReadonlyMap<string, Billed>,
): { lines: FamilyInvoiceLine[]; tutorBilled: TutorBilledLesson[] } {
  const lines: FamilyInvoiceLine[] = [];
  const adjustments: FamilyInvoiceLine[] = [];
  const tutorBilled: TutorBilledLesson[] = [];
  const seen = new Set<string>();
  for (const now of lessons) {
    const { lesson, tutorId, terms } = now;
    seen.add(lesson.lessonId);
    const value = worthOf(now);
    const before = billed.get(lesson.lessonId);
    const ref = {
      lessonId: lesson.lessonId,
      model: value?.model ?? before?.lesson.model ?? 'agency-sells-tuition',
      date: lesson.date,
      tutorId,
      studentId: lesson.studentId,
      engagementId: lesson.engagementId,
      duration: lesson.duration,
      ratePence: lesson.ratePence,
      vatRateBp: terms.vatRateBp,
    } satisfies Omit<BilledLesson, 'kind'>;
    if (value && !before && lesson.date.slice(0, 7) === month) {
      const billedLesson = { ...ref, kind: value.kind };
      lines.push({
        description: describe(value.kind, ref),
        amountPence: value.amountPence,
        vatPence: vatOf(value.amountPence, terms.vatRateBp),
        lesson: billedLesson,
      });
      if (value.kind === 'introduction-fee') {
        const { lessonId, date, studentId, duration, amountPence } = lesson;
        tutorBilled.push({ lessonId, date, tutorId, studentId, duration, amountPence });
      }
      continue;
    }
    const difference = (value?.amountPence ?? 0) - (before?.amountPence ?? 0);
    if (difference === 0) continue;
    adjustments.push({
      description: describe('adjustment', ref, before ? 'changed' : 'recorded late'),
      amountPence: difference,
      vatPence: vatOf(difference, terms.vatRateBp),
      lesson: { ...ref, kind: 'adjustment' },
    });
  }
  // Billed lessons no timesheet holds any more: removed, the whole amount back.
  for (const [lessonId, before] of billed) {
    if (seen.has(lessonId) || before.amountPence === 0) continue;
    const ref = { ...before.lesson, duration: 0 };
    adjustments.push({
      description: describe('adjustment', ref, 'removed'),
      amountPence: -before.amountPence,
      vatPence: vatOf(-before.amountPence, before.lesson.vatRateBp),
      lesson: { ...ref, kind: 'adjustment' },
    });
  }
  lines.sort(byDateThenId);
  adjustments.sort(byDateThenId);
  tutorBilled.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.lessonId < b.lessonId ? -1 : 1));
  return { lines: [...lines, ...adjustments], tutorBilled };
}

/** Net (the amounts), VAT (the lines' VAT) and gross: sums of the lines, never recomputed. */
export function totalsOf(lines: readonly FamilyInvoiceLine[]): { netPence: Pence; vatPence: Pence; grossPence: Pence } {
  const netPence = lines.reduce((sum, line) => sum + line.amountPence, 0);
  const vatPence = lines.reduce((sum, line) => sum + (line.vatPence ?? 0), 0);
  return { netPence, vatPence, grossPence: netPence + vatPence };
}

/**
 * Whether the lines make an invoice now: something to bill, and not less than nothing. A net
 * negative is carried forward (docs/money-models.md): the differences stay, and the next month's
 * invoice holds them again.
 */
export const issuable = (lines: readonly FamilyInvoiceLine[]) => lines.length > 0 && totalsOf(lines).grossPence >= 0;

/** The month a date falls in (`2026-03-14` → `2026-03`). */
export const monthOf = (date: string) => date.slice(0, 7);

/**
 * The agency's requests to bill a month's lessons, stream `family-lesson-billing`: every request is
 * recorded (a second one for a month issues only what the first left out), and the months asked
 * for are the ones whose lessons the reactor bills and measures later changes against.
 */
export type LessonBillingState = { months: ReadonlySet<string> };
export type LessonBillingCommand = {
  type: 'RequestLessonBilling';
  requestId: string;
  month: string;
  today: string;
  actor: Actor;
};

export const lessonBillingStream = () => 'family-lesson-billing';

export const lessonBillingDecider: Decider<LessonBillingCommand, FamilyInvoiceEvent, LessonBillingState> = {
  initialState: () => ({ months: new Set() }),
  evolve: (state, event) =>
    event.type === 'FamilyLessonBillingRequested' ? { months: new Set(state.months).add(event.data.month) } : state,
  decide: ({ requestId, month, today, actor }) => {
    if (actor.role !== 'admin') throw new DomainError('forbidden', 'Only an admin can bill families for lessons.');
    checkId(requestId, 'requestId', 'The request id');
    checkDate(today, 'today');
    if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(month)) {
      throw new DomainError('invalid', 'The month is a year and month, like 2026-03.', { month: 'Use yyyy-mm' });
    }
    if (month > monthOf(today)) {
      throw new DomainError('invalid', 'A month that has not started cannot be billed.', {
        month: 'Bill this month or an earlier one',
      });
    }
    return [{ type: 'FamilyLessonBillingRequested', data: { requestId, month, date: today } }];
  },
};

/**
 * A family's requests for a credit note of what its changed lessons owe it back, stream
 * `family-lesson-credit-{clientId}`: each recorded once (a retry of the same request records
 * nothing); what follows is the `lesson-billing` reactor's.
 */
export type LessonCreditRequest = Extract<FamilyInvoiceEvent, { type: 'FamilyLessonCreditRequested' }>['data'];
export type LessonCreditState = { requests: ReadonlyMap<string, LessonCreditRequest> };

export const lessonCreditStream = (clientId: string) => `family-lesson-credit-${clientId}`;

export const lessonCreditDecider: Decider<
  { type: 'RequestLessonCredit'; request: LessonCreditRequest; actor: Actor },
  FamilyInvoiceEvent,
  LessonCreditState
> = {
  initialState: () => ({ requests: new Map() }),
  evolve: (state, event) =>
    event.type === 'FamilyLessonCreditRequested'
      ? { requests: new Map(state.requests).set(event.data.requestId, event.data) }
      : state,
  decide: ({ request, actor }, state) => {
    if (actor.role !== 'admin') throw new DomainError('forbidden', 'Only an admin can credit a family.');
    if (state.requests.has(request.requestId)) return [];
    checkId(request.requestId, 'requestId', 'The request id');
    checkId(request.clientId, 'clientId', 'The family');
    checkDate(request.date, 'date');
    return [{ type: 'FamilyLessonCreditRequested', data: request }];
  },
};
