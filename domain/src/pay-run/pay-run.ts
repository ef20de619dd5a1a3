import type { PayRunEvent } from '@agency/contracts';
import { type Decider, DomainError } from '../shared/decider';
import { checkDate, checkId, checkPence } from '../shared/limits';
import type { Pence } from '../shared/money';
import { type Actor, monthName } from '../timesheet/timesheet';

export * from './bank-file';
export * from './tutor-bank';

/**
 * A month's pay run, stream `pay-run-{month}` (its id is the month; docs/money-models.md, "Pay
 * runs"): prepared (and prepared again, while not paid) from the tutors' confirmed pay statements
 * still owed, then marked paid once; the `pay-runs` reactor records each payment on its statement.
 */
export type Prepared = Extract<PayRunEvent, { type: 'PayRunPrepared' }>['data'];
export type Paid = Extract<PayRunEvent, { type: 'PayRunPaid' }>['data'];
export type PayRunLine = Prepared['lines'][number];
export type StatementOwed = PayRunLine['statements'][number];

export type PayRunState =
  | { status: 'none' }
  | { status: 'prepared'; run: Prepared }
  | { status: 'paid'; run: Prepared; paid: Paid };

export const payRunStream = (month: string) => `pay-run-${month}`;
/** A run's id is its month. */
export const payRunIdOf = (month: string) => month;

export type PayRunCommand =
  | { type: 'PreparePayRun'; run: Prepared; actor: Actor }
  | {
      type: 'MarkPayRunPaid';
      month: string;
      date: string;
      today: string;
      /** The id of the payment of one statement by this run: the same however often it is asked. */
      paymentIdOf: (statementId: string) => string;
      /** Tutors whose bank details no longer open (erased since the run was prepared): not in the file, not paid. */
      leftOut: readonly string[];
      /** The statements of the payable lines as the admin saw the run (the bank file they paid), when sent. */
      statements?: readonly string[];
      actor: Actor;
    };

const refuse = (field: string, message: string): never => {
  throw new DomainError('invalid', `${message}.`, { [field]: message });
};

const adminOnly = (actor: Actor) => {
  if (actor.role !== 'admin') throw new DomainError('forbidden', 'Only an admin can prepare or pay a pay run.');
};

const MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;

/** What a line pays: the sum of what its statements still owed. */
export const lineTotal = (line: Pick<PayRunLine, 'statements'>): Pence =>
  line.statements.reduce((sum, statement) => sum + statement.owedPence, 0);

/** The lines the bank file pays: those with bank details to pay into. */
export const payableLines = (run: Prepared) => run.lines.filter((line) => line.blocked === null);

/** What the bank file pays in all. */
export const payableTotal = (run: Prepared): Pence =>
  payableLines(run).reduce((sum, line) => sum + line.amountPence, 0);

/** A run as prepared, consistent with itself: each line's amount its statements' sum, each statement once. */
function checkRun(run: Prepared) {
  if (typeof run.month !== 'string' || !MONTH.test(run.month)) refuse('month', 'Use a month like 2026-01');
  if (run.payRunId !== payRunIdOf(run.month)) refuse('month', 'A pay run’s id is its month');
  checkDate(run.date, 'date');
  const seen = new Set<string>();
  const once = (statementId: string) => {
    checkId(statementId, 'statements', 'A pay statement');
    if (seen.has(statementId)) refuse('statements', 'A pay statement is paid once in a run');
    seen.add(statementId);
  };
  for (const line of run.lines) {
    checkId(line.tutorId, 'tutorId', 'The tutor');
    for (const statement of line.statements) {
      once(statement.statementId);
      // Bounded by its statement, not by a payment's cap: a month of large lessons may owe more than
      // £100,000, and a refusal here would leave every tutor of the month unpaid.
      checkPence(statement.owedPence, { field: 'amount', label: 'Owed', positive: true, max: Number.MAX_SAFE_INTEGER });
      if (statement.month > run.month) refuse('statements', 'A run pays statements of its month and before');
    }
    if (line.amountPence !== lineTotal(line)) refuse('amount', 'A line pays what its statements still owe');
    if ((line.blocked === null) !== (line.bankDetailsRevision !== null)) {
      refuse('bankDetails', 'A line is paid into the bank details it names, or says why it cannot be');
    }
  }
  for (const statement of run.waiting) once(statement.statementId);
}

/** Whether two payloads say the same, whatever the order of their keys (a stored payload's is the store's own). */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Object.keys(a);
  return (
    keys.length === Object.keys(b).length &&
    keys.every((key) => sameValue((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]))
  );
}

/** The same run apart from the day it was prepared on. */
const sameRun = (a: Prepared, b: Prepared) => sameValue({ ...a, date: '' }, { ...b, date: '' });

export const payRunDecider: Decider<PayRunCommand, PayRunEvent, PayRunState> = {
  initialState: () => ({ status: 'none' }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'PayRunPrepared':
        return state.status === 'paid' ? state : { status: 'prepared', run: event.data };
      case 'PayRunPaid':
        return state.status === 'prepared' ? { status: 'paid', run: state.run, paid: event.data } : state;
      default:
        return state;
    }
  },
  decide: (command, state) => {
    adminOnly(command.actor);
    if (command.type === 'PreparePayRun') {
      const { run } = command;
      checkRun(run);
      if (state.status === 'paid') {
        throw new DomainError(
          'conflict',
          `The pay run of ${monthName(run.month)} was paid on ${state.paid.date}: what is still owed goes on the next month’s run.`,
        );
      }
      // Prepared again with nothing changed (a second click, a retry): the run stands as it was.
      if (state.status === 'prepared' && sameRun(state.run, run)) return [];
      return [{ type: 'PayRunPrepared', data: run }];
    }
    const { month, date, today, paymentIdOf, leftOut } = command;
    checkDate(date, 'date');
    if (state.status === 'none') throw new DomainError('not_found', 'There is no pay run for that month.');
    // Paid already: marking it paid again changes nothing, whatever the date.
    if (state.status === 'paid') return [];
    if (date > today) refuse('date', 'A payment is recorded once it is made, not before');
    if (date < state.run.date) refuse('date', 'A run is paid on or after the day it was prepared');
    const prepared = payableLines(state.run).flatMap((line) => line.statements.map((s) => s.statementId));
    if (command.statements && !sameValue([...command.statements].sort(), [...prepared].sort())) {
      throw new DomainError(
        'conflict',
        'This pay run was prepared again since you opened it, and its bank file changed: open it again, check the file you paid, then mark it paid.',
      );
    }
    const paid = payableLines(state.run).filter((line) => !leftOut.includes(line.tutorId));
    const payments = paid.flatMap((line) =>
      line.statements.map((statement) => ({
        paymentId: paymentIdOf(statement.statementId),
        tutorId: line.tutorId,
        statementId: statement.statementId,
        month: statement.month,
        amountPence: statement.owedPence,
      })),
    );
    if (payments.length === 0) {
      throw new DomainError('conflict', 'This pay run has nobody to pay: there is nothing to mark paid.');
    }
    return [{ type: 'PayRunPaid', data: { payRunId: state.run.payRunId, month, date, payments } }];
  },
};
