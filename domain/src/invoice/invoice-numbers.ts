import type { InvoiceEvent } from '@agency/contracts';
import { type Decider, DomainError } from '../shared/decider';
import { checkId } from '../shared/limits';

/**
 * One tutor's invoice numbers, stream `invoice-numbers-{tutorId}`. Each generation of an invoice
 * takes the next number at the stream's expected revision, so two generations never share one; a
 * generation that asks again (its reaction ran twice) gets its own number back, so a re-run never
 * takes a second one. `after` is the highest number given before numbers were kept here (the
 * command side's old counter): the sequence continues after it, so no reference repeats.
 */
export type InvoiceNumbersState = { last: number; numbers: ReadonlyMap<string, number> };

export type InvoiceNumbersCommand = {
  type: 'TakeInvoiceNumber';
  tutorId: string;
  invoiceId: string;
  month: string;
  /** The generation the number is for: the month lock that froze its lessons. */
  generationId: string;
  after: number;
};

export const invoiceNumbersDecider: Decider<InvoiceNumbersCommand, InvoiceEvent, InvoiceNumbersState> = {
  initialState: () => ({ last: 0, numbers: new Map() }),
  evolve: (state, event) =>
    event.type === 'InvoiceNumberTaken'
      ? {
          last: Math.max(state.last, event.data.number),
          numbers: new Map(state.numbers).set(event.data.generationId, event.data.number),
        }
      : state,
  decide: (command, state) => {
    const { tutorId, invoiceId, month, generationId, after } = command;
    checkId(generationId, 'generationId', 'The generation id');
    if (state.numbers.has(generationId)) return [];
    if (!Number.isSafeInteger(after) || after < 0) {
      throw new DomainError('invalid', 'The last invoice number given must be a whole number from 0.');
    }
    const number = Math.max(state.last, after) + 1;
    return [{ type: 'InvoiceNumberTaken', data: { tutorId, invoiceId, month, generationId, number } }];
  },
};

export const invoiceNumbersStream = (tutorId: string) => `invoice-numbers-${tutorId}`;

/** The number a generation took, once it has taken one. */
export const numberOf = (state: InvoiceNumbersState, generationId: string) => state.numbers.get(generationId);
