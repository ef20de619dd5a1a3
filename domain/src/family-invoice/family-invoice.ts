import {
  type ClientEvent,
  type FamilyBilling,
  type FamilyInvoiceEvent,
  type FamilyInvoiceLine,
  LIMITS,
} from '@agency/contracts';
import { type Decider, DomainError } from '../shared/decider';
import { checkDate, checkId, checkList, checkPence, checkText } from '../shared/limits';
import { formatPounds, type Pence } from '../shared/money';
import type { Actor } from '../timesheet/timesheet';

/**
 * A family invoice, stream `family-invoice-{id}`: money the agency charges a family (for a
 * consultation; workshop registrations next). Once issued it never changes: payments are added
 * to it, and a change or a cancellation of what it bills is a credit note for the whole of it
 * (a document with its own reference), after which a new invoice is issued if anything is owed.
 */
export type IssuedInvoice = Extract<FamilyInvoiceEvent, { type: 'FamilyInvoiceIssued' }>['data'];
export type CreditNote = Extract<FamilyInvoiceEvent, { type: 'FamilyCreditNoteIssued' }>['data'];

export type FamilyInvoiceState =
  | { status: 'none' }
  | { status: 'issued'; invoice: IssuedInvoice; paidPence: Pence; creditNote: CreditNote | null };

export type FamilyInvoiceCommand =
  | {
      type: 'IssueFamilyInvoice';
      invoice: Omit<IssuedInvoice, 'totalPence'>;
    }
  | { type: 'RecordFamilyPayment'; paymentId: string; date: string; amountPence: Pence; actor: Actor }
  | { type: 'IssueCreditNote'; creditNoteId: string; reference: string; date: string; reason: CreditNote['reason'] };

export const initialState = (): FamilyInvoiceState => ({ status: 'none' });

export function evolve(state: FamilyInvoiceState, event: FamilyInvoiceEvent): FamilyInvoiceState {
  switch (event.type) {
    case 'FamilyInvoiceIssued':
      return { status: 'issued', invoice: event.data, paidPence: 0, creditNote: null };
    case 'FamilyInvoicePaymentRecorded':
      return state.status === 'none' ? state : { ...state, paidPence: state.paidPence + event.data.amountPence };
    case 'FamilyCreditNoteIssued':
      return state.status === 'none' ? state : { ...state, creditNote: event.data };
    default:
      return state;
  }
}

/** What is still owed: nothing once credited. */
export const outstandingOf = (state: Exclude<FamilyInvoiceState, { status: 'none' }>): Pence =>
  state.creditNote ? 0 : Math.max(state.invoice.totalPence - state.paidPence, 0);

const refuseInvalid = (field: string, message: string): never => {
  throw new DomainError('invalid', `${message}.`, { [field]: message });
};

/**
 * The name on an invoice is a contact's first and last names, each within the text limit: its
 * bound is theirs together, so no valid contact gives a name an invoice would refuse.
 */
const MAX_BILLING_NAME = 2 * LIMITS.maxTextLength + 1;

function checkBilling(billing: FamilyBilling) {
  checkText(billing.name, { field: 'billing.name', label: 'The family’s name', required: true, max: MAX_BILLING_NAME });
  checkList(billing.address, LIMITS.maxAddressLines, 'billing.address', 'Address lines', (line) =>
    checkText(line, { field: 'billing.address', label: 'An address line' }),
  );
  checkText(billing.postcode, { field: 'billing.postcode', label: 'Postcode' });
  checkText(billing.email, { field: 'billing.email', label: 'Email', max: LIMITS.maxEmailLength });
}

/** A lessons invoice has a line per lesson of the family's month: more than any other invoice. */
const MAX_LINES = 100;
const MAX_LESSON_LINES = 1000;
/**
 * A lessons invoice's total: as many lessons as it has lines, each of the largest amount a timesheet
 * takes, with VAT at up to 100 %. A lesson the timesheet took is always billable: a refused lessons
 * invoice would stop the billing reactor at its request, every family's billing after it too.
 */
const MAX_LESSON_INVOICE_PENCE = MAX_LESSON_LINES * LIMITS.maxMoneyPence * 2;

/**
 * The lines' amounts and their VAT summed. Only a lessons invoice's adjustment line may be negative
 * (a lesson changed down or removed after it was billed), and no invoice sums below nothing.
 */
function checkLines(lines: readonly FamilyInvoiceLine[]): { netPence: Pence; vatPence: Pence } {
  if (lines.length === 0) refuseInvalid('lines', 'An invoice has at least one line');
  const lessons = lines.some((line) => line.lesson);
  const max = lessons ? MAX_LESSON_LINES : MAX_LINES;
  const sums = checkList(lines, max, 'lines', 'Invoice lines', (line) => {
    const { description, amountPence, vatPence = 0, lesson } = line as FamilyInvoiceLine;
    checkText(description, { field: 'lines', label: 'A line’s description', required: true });
    const mayBeNegative = lesson?.kind === 'adjustment';
    const signed = (value: number, field: string, label: string) =>
      mayBeNegative && value < 0 ? -checkPence(-value, { field, label }) : checkPence(value, { field, label });
    return { amount: signed(amountPence, 'amount', 'Amount'), vat: signed(vatPence, 'vat', 'VAT') };
  });
  const netPence = sums.reduce((sum, { amount }) => sum + amount, 0);
  const vatPence = sums.reduce((sum, { vat }) => sum + vat, 0);
  checkPence(netPence + vatPence, {
    field: 'amount',
    label: 'The total',
    max: lessons ? MAX_LESSON_INVOICE_PENCE : LIMITS.maxMoneyPence,
  });
  return { netPence, vatPence };
}

/**
 * What an invoice to issue must be, apart from its reference and dates (a command checks this
 * before its own append, so the invoice that follows from it is never refused): the total, VAT
 * included, and the VAT.
 */
export function checkInvoiceTotals(invoice: Pick<IssuedInvoice, 'billing' | 'lines' | 'discountPence'>): {
  totalPence: Pence;
  vatPence: Pence;
} {
  checkBilling(invoice.billing);
  const { netPence, vatPence } = checkLines(invoice.lines);
  const sum = netPence + vatPence;
  const discount = checkPence(invoice.discountPence ?? 0, { field: 'discountAmount', label: 'Discount' });
  if (discount > sum) refuseInvalid('discountAmount', `The discount cannot be more than ${formatPounds(sum)}`);
  return { totalPence: sum - discount, vatPence };
}

/** The total an invoice to issue comes to (see `checkInvoiceTotals`). */
export const checkInvoice = (invoice: Pick<IssuedInvoice, 'billing' | 'lines' | 'discountPence'>): Pence =>
  checkInvoiceTotals(invoice).totalPence;

export function decide(command: FamilyInvoiceCommand, state: FamilyInvoiceState, _now: Date): FamilyInvoiceEvent[] {
  switch (command.type) {
    case 'IssueFamilyInvoice': {
      // Issued once: a retry answers with the first.
      if (state.status !== 'none') return [];
      const { invoice } = command;
      checkId(invoice.invoiceId, 'invoiceId', 'The invoice id');
      checkText(invoice.reference, { field: 'reference', label: 'The reference', required: true, max: 40 });
      checkDate(invoice.date, 'date');
      checkDate(invoice.dueDate, 'dueDate');
      if (invoice.dueDate < invoice.date) refuseInvalid('dueDate', 'Payment cannot be due before the invoice date');
      const { totalPence, vatPence } = checkInvoiceTotals(invoice);
      // Only a lessons invoice names its VAT: every other invoice's payload stays as it always was.
      const vat = invoice.billedFor.kind === 'lessons' ? { vatPence } : {};
      return [{ type: 'FamilyInvoiceIssued', data: { ...invoice, ...vat, totalPence } }];
    }
    case 'RecordFamilyPayment': {
      if (command.actor.role !== 'admin') throw new DomainError('forbidden', 'Only an admin can record a payment.');
      if (state.status === 'none') throw new DomainError('not_found', 'There is no such invoice.');
      const { paymentId, date, amountPence } = command;
      checkPence(amountPence, { field: 'amount', label: 'Amount', positive: true });
      checkDate(date, 'date');
      if (state.creditNote) {
        throw new DomainError('conflict', `Invoice ${state.invoice.reference} was credited: nothing is owed on it.`);
      }
      const outstanding = outstandingOf(state);
      if (amountPence > outstanding) {
        throw new DomainError(
          'conflict',
          `Only ${formatPounds(outstanding)} is left to pay on invoice ${state.invoice.reference}.`,
          { amount: `At most ${formatPounds(outstanding)}` },
        );
      }
      const { invoiceId } = state.invoice;
      return [{ type: 'FamilyInvoicePaymentRecorded', data: { invoiceId, paymentId, date, amountPence } }];
    }
    case 'IssueCreditNote': {
      if (state.status === 'none') throw new DomainError('not_found', 'There is no such invoice.');
      // Credited once, as a whole.
      if (state.creditNote) return [];
      const { creditNoteId, reference, date, reason } = command;
      checkId(creditNoteId, 'creditNoteId', 'The credit note id');
      checkText(reference, { field: 'reference', label: 'The reference', required: true, max: 40 });
      checkDate(date, 'date');
      const { invoiceId, lines, totalPence } = state.invoice;
      return [
        {
          type: 'FamilyCreditNoteIssued',
          data: { invoiceId, creditNoteId, reference, date, reason, lines, totalPence },
        },
      ];
    }
    default: {
      const _never: never = command;
      return _never;
    }
  }
}

export const familyInvoiceDecider: Decider<FamilyInvoiceCommand, FamilyInvoiceEvent, FamilyInvoiceState> = {
  initialState,
  evolve,
  decide,
};

export const familyInvoiceStream = (invoiceId: string) => `family-invoice-${invoiceId}`;

/**
 * The agency-wide reference sequence, stream `family-invoice-sequence`: each document (invoice or
 * credit note) takes the next number at the stream's expected revision, so two saves at the same
 * moment never share one; a document that asks again (a retried command) gets its own number back.
 */
export type SequenceState = { last: number; numbers: ReadonlyMap<string, number> };
export type SequenceCommand = { type: 'TakeNumber'; documentId: string };

export const sequenceDecider: Decider<SequenceCommand, FamilyInvoiceEvent, SequenceState> = {
  initialState: () => ({ last: 0, numbers: new Map() }),
  evolve: (state, event) =>
    event.type === 'FamilyInvoiceNumberTaken'
      ? { last: event.data.number, numbers: new Map(state.numbers).set(event.data.documentId, event.data.number) }
      : state,
  decide: (command, state) => {
    checkId(command.documentId, 'documentId', 'The document id');
    if (state.numbers.has(command.documentId)) return [];
    return [{ type: 'FamilyInvoiceNumberTaken', data: { number: state.last + 1, documentId: command.documentId } }];
  },
};

export const sequenceStream = () => 'family-invoice-sequence';

/** The agency's prefix and the number, at least five digits: ('OTA', 12) → 'OTA00012'. */
export const familyInvoiceReference = (prefix: string, number: number) => `${prefix}${String(number).padStart(5, '0')}`;
/** A credit note's reference, from the same sequence: ('OTA', 13) → 'CN-OTA00013'. */
export const creditNoteReference = (prefix: string, number: number) => `CN-${familyInvoiceReference(prefix, number)}`;

/**
 * Whom a family's invoices are addressed to: its first contact, as the client's own stream tells
 * it (never a read model that may lag). null: no such family.
 */
export const familyBillingView = {
  initialState: (): { contactId: string; billing: FamilyBilling } | null => null,
  evolve: (
    state: { contactId: string; billing: FamilyBilling } | null,
    event: ClientEvent,
  ): { contactId: string; billing: FamilyBilling } | null => {
    const billingOf = (contact: {
      firstName: string;
      lastName: string;
      address: string[];
      postcode: string;
      email: string;
    }) => ({
      name: `${contact.firstName} ${contact.lastName}`,
      address: contact.address,
      postcode: contact.postcode,
      email: contact.email,
    });
    if (event.type === 'ClientRegistered')
      return { contactId: event.data.contact.id, billing: billingOf(event.data.contact) };
    if (event.type === 'ContactDetailsChanged' && state && event.data.contact.id === state.contactId) {
      return { ...state, billing: billingOf(event.data.contact) };
    }
    return state;
  },
};
