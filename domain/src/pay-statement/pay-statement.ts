import type { PayEvent, PayStatementLine } from '@agency/contracts';
import { type Decider, DomainError } from '../shared/decider';
import { checkDate, checkId, checkPence } from '../shared/limits';
import { formatPounds, type Pence } from '../shared/money';
import { type Actor, monthName } from '../timesheet/timesheet';

/**
 * A tutor's pay statement for a month, stream `pay-statement-{tutorId}-{month}`
 * (docs/money-models.md, "Pay statements"): what the agency pays the tutor for the lessons it sold,
 * issued once and never changed; the tutor confirms it, and pay runs record payments on it.
 */
export type IssuedStatement = Extract<PayEvent, { type: 'PayStatementIssued' }>['data'];

export type PayStatementState =
  | { status: 'none' }
  | {
      status: 'issued';
      statement: IssuedStatement;
      confirmed: boolean;
      paidPence: Pence;
      paymentIds: ReadonlySet<string>;
    };

export type PayStatementCommand =
  | {
      type: 'IssuePayStatement';
      statement: Omit<IssuedStatement, 'totalPayPence'>;
    }
  | { type: 'ConfirmPayStatement'; actor: Actor }
  | {
      type: 'RecordTutorPayment';
      paymentId: string;
      payRunId: string;
      date: string;
      amountPence: Pence;
      actor: Actor;
    };

/** A statement's id: one per tutor and month. */
export const payStatementId = (tutorId: string, month: string) => `${tutorId}-${month}`;
export const payStatementStream = (tutorId: string, month: string) => `pay-statement-${payStatementId(tutorId, month)}`;
/** The stream of the months whose statements an admin prepared. */
export const preparedStream = () => 'pay-statements-prepared';

/** What a statement's lines and carried balance add up to. */
export const totalOf = (statement: Pick<IssuedStatement, 'lines' | 'carriedPence'>): Pence =>
  statement.lines.reduce((sum, line) => sum + (line.kind === 'held' ? 0 : line.linePence), statement.carriedPence);

/** What is still to pay on an issued statement: nothing when its total is below 0 (it carries instead). */
export const owedOf = (state: Extract<PayStatementState, { status: 'issued' }>): Pence =>
  Math.max(state.statement.totalPayPence - state.paidPence, 0);

export const initialState = (): PayStatementState => ({ status: 'none' });

export function evolve(state: PayStatementState, event: PayEvent): PayStatementState {
  switch (event.type) {
    case 'PayStatementIssued':
      return { status: 'issued', statement: event.data, confirmed: false, paidPence: 0, paymentIds: new Set() };
    case 'PayStatementConfirmed':
      return state.status === 'issued' ? { ...state, confirmed: true } : state;
    case 'TutorPaymentRecorded':
      return state.status === 'issued'
        ? {
            ...state,
            paidPence: state.paidPence + event.data.amountPence,
            paymentIds: new Set(state.paymentIds).add(event.data.paymentId),
          }
        : state;
    default:
      return state;
  }
}

const refuse = (field: string, message: string): never => {
  throw new DomainError('invalid', `${message}.`, { [field]: message });
};

/** A line is consistent with itself: pay is amount − share, what it adds is pay − paid before (0 held). */
function checkLine(line: PayStatementLine) {
  checkId(line.lessonId, 'lines', 'A line’s lesson');
  if (line.payPence !== line.amountPence - line.sharePence)
    refuse('lines', 'A line’s pay is its amount less the share');
  const adds = line.kind === 'held' ? 0 : line.payPence - line.paidBeforePence;
  if (line.linePence !== adds) refuse('lines', 'A line adds its pay less what was paid before');
}

function existing(state: PayStatementState) {
  if (state.status === 'none') throw new DomainError('not_found', 'There is no such pay statement.');
  return state;
}

export function decide(command: PayStatementCommand, state: PayStatementState, _now: Date): PayEvent[] {
  switch (command.type) {
    case 'IssuePayStatement': {
      // Issued once: a retry (or a second preparation of the month) answers with the first.
      if (state.status !== 'none') return [];
      const { statement } = command;
      checkId(statement.tutorId, 'tutorId', 'The tutor');
      if (statement.statementId !== payStatementId(statement.tutorId, statement.month)) {
        refuse('statementId', 'A statement’s id is its tutor and month');
      }
      checkDate(statement.date, 'date');
      if (statement.carriedPence > 0) refuse('carried', 'Only a balance owed to the agency is carried');
      for (const line of statement.lines) checkLine(line);
      return [{ type: 'PayStatementIssued', data: { ...statement, totalPayPence: totalOf(statement) } }];
    }
    case 'ConfirmPayStatement': {
      const { statement, confirmed } = existing(state);
      // As the spec's invoice confirmation: the tutor, or an admin on their behalf.
      if (command.actor.role !== 'admin' && command.actor.tutorId !== statement.tutorId) {
        throw new DomainError('forbidden', 'Only the statement’s tutor or an admin can confirm it.');
      }
      if (confirmed) return [];
      const { statementId, tutorId, month } = statement;
      return [{ type: 'PayStatementConfirmed', data: { statementId, tutorId, month } }];
    }
    case 'RecordTutorPayment': {
      if (command.actor.role !== 'admin') throw new DomainError('forbidden', 'Only an admin can record a payment.');
      const issued = existing(state);
      const { paymentId, payRunId, date, amountPence } = command;
      checkId(paymentId, 'paymentId', 'The payment id');
      checkId(payRunId, 'payRunId', 'The pay run id');
      checkDate(date, 'date');
      // At most what is owed (below), which a month of large lessons may put above £100,000: a pay run
      // pays a statement in one payment, and a refusal would stop the pay-runs reactor at it.
      checkPence(amountPence, { field: 'amount', label: 'Amount', positive: true, max: Number.MAX_SAFE_INTEGER });
      // Recorded once per payment: a retried pay run records nothing more.
      if (issued.paymentIds.has(paymentId)) return [];
      const owed = owedOf(issued);
      const { statementId, tutorId, month, reference } = issued.statement;
      if (amountPence > owed) {
        throw new DomainError(
          'conflict',
          `Only ${formatPounds(owed)} is left to pay on pay statement ${reference} (${monthName(month)}).`,
          { amount: `At most ${formatPounds(owed)}` },
        );
      }
      return [
        { type: 'TutorPaymentRecorded', data: { statementId, tutorId, month, paymentId, payRunId, date, amountPence } },
      ];
    }
    default: {
      const _never: never = command;
      return _never;
    }
  }
}

export const payStatementDecider: Decider<PayStatementCommand, PayEvent, PayStatementState> = {
  initialState,
  evolve,
  decide,
};

/**
 * The months prepared (stream `pay-statements-prepared`), in order: a month is prepared once, and
 * never before one prepared already, so each statement is computed knowing every earlier one.
 */
export type PreparedState = { months: ReadonlyMap<string, { date: string; tutorIds: readonly string[] }> };
export type PrepareCommand = {
  type: 'PreparePayStatements';
  month: string;
  date: string;
  tutorIds: string[];
  actor: Actor;
};

export const latestPrepared = (state: PreparedState): string | undefined => [...state.months.keys()].sort().at(-1);

export const preparedDecider: Decider<PrepareCommand, PayEvent, PreparedState> = {
  initialState: () => ({ months: new Map() }),
  evolve: (state, event) =>
    event.type === 'PayStatementsPrepared'
      ? {
          months: new Map(state.months).set(event.data.month, { date: event.data.date, tutorIds: event.data.tutorIds }),
        }
      : state,
  decide: ({ month, date, tutorIds, actor }, state) => {
    if (actor.role !== 'admin') throw new DomainError('forbidden', 'Only an admin can prepare pay statements.');
    if (typeof month !== 'string' || !/^\d{4}-(0[1-9]|1[0-2])$/.test(month))
      refuse('month', 'Use a month like 2026-01');
    checkDate(date, 'date');
    if (`${month}-01` > date) refuse('month', 'A month’s statements are prepared once it has started');
    if (state.months.has(month)) return [];
    const latest = latestPrepared(state);
    if (latest && latest > month) {
      throw new DomainError(
        'conflict',
        `The statements of ${monthName(latest)} are prepared already: an earlier month's lessons are paid on the next statement.`,
        { month: `After ${monthName(latest)}` },
      );
    }
    return [{ type: 'PayStatementsPrepared', data: { month, date, tutorIds } }];
  },
};
export * from './pay-rules';
