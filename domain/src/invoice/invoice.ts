import { type InvoiceEvent, type InvoiceItem, type LessonDetails, LIMITS } from '@agency/contracts';
import { addDays } from '../shared/calendar';
import { type Decider, DomainError } from '../shared/decider';
import { checkDate, checkPence, checkText } from '../shared/limits';
import { formatPercent, formatPounds, type Pence } from '../shared/money';
import { type Actor, checkMayRecordFor, monthName } from '../timesheet/timesheet';

/**
 * One tutor's invoice for one month, stream `invoice-{tutorId}-{yyyy-mm}`: at most one per
 * month by construction. A generation locks the month's timesheet (`LockMonth`, the decisive
 * write); the invoice follows from that lock, generated from the lessons it froze (the invoices
 * reactor, `invoiceAfterLock`), so the invoice and the lessons cannot drift apart.
 */
export type InvoiceSummary = {
  items: InvoiceItem[];
  lessonCount: number;
  earningsPence: Pence;
  commissionPence: Pence;
  partnerCommissionPence: Pence;
};

export type Invoice = InvoiceSummary & {
  invoiceId: string;
  tutorId: string;
  month: string;
  reference: string;
  date: string;
};

/** `voided`: the references of the month's withdrawn invoices, oldest first (never given again). */
export type InvoiceState =
  | { status: 'none'; voided: readonly string[] }
  | { status: 'generated'; invoice: Invoice; paidPence: Pence; voided: readonly string[] }
  | { status: 'confirmed'; invoice: Invoice; paidPence: Pence; voided: readonly string[] };

export type InvoiceCommand =
  | {
      type: 'GenerateInvoice';
      invoiceId: string;
      tutorId: string;
      month: string;
      /** The tutor's invoice prefix and the number this generation took from the tutor's sequence. */
      invoicePrefix: string;
      number: number;
      /** The invoice date: today in the agency's time zone. */
      date: string;
      /** The month's lessons, as the lock froze them. */
      lessons: readonly LessonDetails[];
      actor: Actor;
    }
  | { type: 'ConfirmInvoice'; actor: Actor }
  | { type: 'WithdrawInvoice'; actor: Actor }
  | { type: 'RecordPayment'; paymentId: string; date: string; amountPence: Pence; actor: Actor };

export const initialState = (): InvoiceState => ({ status: 'none', voided: [] });

/** When an engagement ran: its first day and its last (null while it goes on). */
export type EngagementSpan = { startDate: string; endDate: string | null };

/** The last day of a 'YYYY-MM' month. */
const lastDayOf = (month: string) =>
  new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 0)).toISOString().slice(0, 10);

/** '2026-11-27', '2026-11-30' → '27–30 November 2026'; one day alone → '30 November 2026'. */
function daysInWords(first: string, last: string) {
  const [name, year] = monthName(first.slice(0, 7)).split(' ');
  const day = (date: string) => String(Number(date.slice(8, 10)));
  return first === last ? `${day(first)} ${name} ${year}` : `${day(first)}–${day(last)} ${name} ${year}`;
}

/**
 * A month can be invoiced once it has ended, and only if the tutor had an engagement in it (one
 * whose span overlaps the month): nobody can lock a month of another year by mistake. The current
 * month only `early`, when the user has confirmed that its invoice locks the rest of it too (no
 * lesson can be added for those days). A month that has not started never.
 * `today` is in the agency's time zone; `engagements` are all the tutor's, ended ones included.
 */
export function checkMonthInvoiceable(
  month: string,
  today: string,
  engagements: readonly EngagementSpan[],
  early = false,
) {
  if (month > today.slice(0, 7)) {
    throw new DomainError('invalid', `${monthName(month)} has not started yet, so it cannot be invoiced.`, {
      month: 'Not started yet',
    });
  }
  // Dates are YYYY-MM-DD strings: every day of the month sorts between these two.
  const [first, last] = [`${month}-01`, `${month}-31`];
  if (!engagements.some((span) => span.startDate <= last && (span.endDate === null || span.endDate >= first))) {
    throw new DomainError(
      'conflict',
      `This tutor had no engagement in ${monthName(month)}, so there is no invoice to generate.`,
      { month: 'No engagement this month' },
    );
  }
  if (month === today.slice(0, 7) && !early) {
    const last = lastDayOf(month);
    const rest = today === last ? `the rest of ${daysInWords(today, today)}` : daysInWords(addDays(today, 1), last);
    throw new DomainError(
      'conflict',
      `${monthName(month)} has not ended yet: invoicing it now locks its lessons up to the end of the month (${rest}), so none can be added for those days. Invoice it early only if that is meant.`,
      { month: 'Not ended yet' },
    );
  }
}

/**
 * The month's earnings grouped by commission rate (lowest rate first), with totals. Each
 * item's commission is the sum of its lessons' commissions, which were rounded per lesson,
 * so the invoice always equals the lessons month view to the penny.
 */
export type PricedLesson = Pick<
  LessonDetails,
  'amountPence' | 'commissionBp' | 'commissionPence' | 'partnerCommissionPence'
>;

export function invoiceSummary(lessons: readonly PricedLesson[]): InvoiceSummary {
  const byRate = new Map<number, InvoiceItem>();
  for (const lesson of lessons) {
    const item = byRate.get(lesson.commissionBp) ?? {
      commissionBp: lesson.commissionBp,
      earningsPence: 0,
      commissionPence: 0,
    };
    byRate.set(lesson.commissionBp, {
      ...item,
      earningsPence: item.earningsPence + lesson.amountPence,
      commissionPence: item.commissionPence + lesson.commissionPence,
    });
  }
  const items = [...byRate.values()].sort((a, b) => a.commissionBp - b.commissionBp);
  const sum = (pick: (lesson: PricedLesson) => number) => lessons.reduce((total, lesson) => total + pick(lesson), 0);
  return {
    items,
    lessonCount: lessons.length,
    earningsPence: sum((lesson) => lesson.amountPence),
    commissionPence: sum((lesson) => lesson.commissionPence),
    partnerCommissionPence: sum((lesson) => lesson.partnerCommissionPence),
  };
}

/** The invoice line as the confirmation page and the document show it. */
export const itemDescription = (item: InvoiceItem) =>
  `Earnings of ${formatPounds(item.earningsPence)} at ${formatPercent(item.commissionBp)}% commission`;

/** The tutor's prefix and the number, at least four digits: ('JS', 12) → 'JS0012'. */
export const invoiceReference = (prefix: string, number: number) => `${prefix}${String(number).padStart(4, '0')}`;

export function evolve(state: InvoiceState, event: InvoiceEvent): InvoiceState {
  switch (event.type) {
    case 'InvoiceGenerated':
      return { status: 'generated', invoice: event.data, paidPence: 0, voided: state.voided };
    case 'InvoiceConfirmed':
      return state.status === 'none' ? state : { ...state, status: 'confirmed' };
    case 'InvoicePaymentRecorded':
      return state.status === 'none' ? state : { ...state, paidPence: state.paidPence + event.data.amountPence };
    case 'InvoiceWithdrawn':
      return { status: 'none', voided: [...state.voided, event.data.reference] };
    default:
      // An event type this version does not know (written by a newer one): it changes nothing here.
      return state;
  }
}

/** A partner is a tutor too: their own invoice is theirs, another tutor's is not. */
function checkOwnOrAdmin(actor: Actor, invoice: Invoice, doing: string) {
  if (!(actor.role === 'admin' || actor.tutorId === invoice.tutorId)) {
    throw new DomainError('forbidden', `Only the invoice's tutor or an admin can ${doing} it.`);
  }
}

function existing(state: InvoiceState) {
  if (state.status === 'none') throw new DomainError('not_found', 'There is no such invoice.');
  return state;
}

export function decide(command: InvoiceCommand, state: InvoiceState, _now: Date): InvoiceEvent[] {
  switch (command.type) {
    case 'GenerateInvoice': {
      const { invoiceId, tutorId, month, invoicePrefix, number, date, lessons, actor } = command;
      checkMayRecordFor(actor, tutorId);
      // The invoice page generates on every visit: the second time answers with the first invoice.
      if (state.status !== 'none') return [];
      if (!Number.isSafeInteger(number) || number < 1) {
        throw new DomainError('invalid', 'An invoice number must be a whole number from 1.');
      }
      checkDate(date, 'date');
      checkText(invoicePrefix, {
        field: 'invoicePrefix',
        label: 'Invoice Prefix',
        max: LIMITS.maxInvoicePrefixLength,
        required: true,
      });
      const stray = lessons.find((lesson) => lesson.date.slice(0, 7) !== month);
      if (stray) {
        throw new DomainError(
          'invalid',
          `A lesson on ${stray.date} does not belong on the invoice for ${monthName(month)}.`,
        );
      }
      const reference = invoiceReference(invoicePrefix, number);
      return [
        { type: 'InvoiceGenerated', data: { invoiceId, tutorId, month, reference, date, ...invoiceSummary(lessons) } },
      ];
    }
    case 'ConfirmInvoice': {
      const { invoice, status } = existing(state);
      checkOwnOrAdmin(command.actor, invoice, 'confirm');
      if (status === 'confirmed') return [];
      const { invoiceId, tutorId, month } = invoice;
      return [{ type: 'InvoiceConfirmed', data: { invoiceId, tutorId, month } }];
    }
    case 'WithdrawInvoice': {
      // Withdrawn already (a retry): nothing more to do.
      if (state.status === 'none' && state.voided.length > 0) return [];
      const { invoice, status, paidPence } = existing(state);
      checkOwnOrAdmin(command.actor, invoice, 'withdraw');
      if (status === 'confirmed') {
        throw new DomainError('conflict', `Invoice ${invoice.reference} is confirmed: it can no longer be withdrawn.`);
      }
      if (paidPence > 0) {
        throw new DomainError('conflict', `Invoice ${invoice.reference} has a payment: it cannot be withdrawn.`);
      }
      const { invoiceId, tutorId, month, reference } = invoice;
      return [{ type: 'InvoiceWithdrawn', data: { invoiceId, tutorId, month, reference } }];
    }
    case 'RecordPayment': {
      if (command.actor.role !== 'admin') throw new DomainError('forbidden', 'Only an admin can record a payment.');
      const { invoice } = existing(state);
      const { paymentId, date, amountPence } = command;
      if (!Number.isInteger(amountPence) || amountPence <= 0) {
        throw new DomainError('invalid', 'A payment must be more than £0.00.', {
          amount: 'Amount must be more than 0',
        });
      }
      checkPence(amountPence, { field: 'amount', label: 'A payment', positive: true });
      checkDate(date, 'date');
      if (invoice.commissionPence === 0) {
        throw new DomainError('invalid', 'There is nothing to pay on this invoice: it has no commission.');
      }
      const { invoiceId, tutorId, month } = invoice;
      return [{ type: 'InvoicePaymentRecorded', data: { invoiceId, tutorId, month, paymentId, date, amountPence } }];
    }
    default: {
      const _never: never = command;
      return _never;
    }
  }
}

export const invoiceDecider: Decider<InvoiceCommand, InvoiceEvent, InvoiceState> = { initialState, evolve, decide };

/** `month` is `YYYY-MM`. */
export const invoiceStream = (tutorId: string, month: string) => `invoice-${tutorId}-${month}`;

/**
 * The invoice id names its tutor and month, `{tutorId}_{yyyy-mm}`: the stream is found from the
 * id alone, and the id exists before the invoice does, so the month's lock can name it.
 */
export const invoiceIdOf = (tutorId: string, month: string) => `${tutorId}_${month}`;

export * from './commission-lessons';
export * from './invoice-numbers';
export * from './invoice-reactions';
