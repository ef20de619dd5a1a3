import { type EngagementEvent, type EngagementTerms, LIMITS, subjectOptions } from '@agency/contracts';
import { type Decider, DomainError } from '../shared/decider';
import { checkDate, checkId, checkList, checkPence, checkText } from '../shared/limits';
import { basisPointsToFraction, toPounds } from '../shared/money';

/**
 * An engagement's life is a run of periods. Only each period's start is stored: a period ends
 * the day before the next one starts, and the last one ends with the engagement (or never).
 * Periods therefore tile the life with no overlap and no gap by construction.
 */
type StoredPeriod = EngagementTerms & { startDate: string; subjects: string[] };

/** A period with its end: `endDate` null while the engagement goes on. Pence and basis points. */
export type EngagementPeriod = StoredPeriod & { endDate: string | null };

type Life = { engagementId: string; tutorId: string; studentId: string; periods: StoredPeriod[] };

export type EngagementState =
  | { status: 'none' }
  | ({ status: 'ongoing' } & Life)
  | ({ status: 'ended'; endDate: string } & Life);

/**
 * Lookups that span streams are arguments: the service asks its read model whether the tutor
 * already has another ongoing engagement with this student.
 */
export type EngagementCommand =
  | ({
      type: 'StartEngagement';
      engagementId: string;
      tutorId: string;
      studentId: string;
      startDate: string;
      subjects: string[];
      otherOngoingWithSameStudent: boolean;
    } & EngagementTerms)
  | ({ type: 'ChangeRates'; from: string } & EngagementTerms)
  | { type: 'ChangeSubjects'; from: string; subjects: string[] }
  | ({ type: 'CorrectPeriod'; periodStart: string; startDate: string; subjects: string[] } & EngagementTerms)
  | { type: 'TerminateEngagement'; endDate: string };

/** What lessons and invoices need to know about an engagement. */
export type EngagementSummary = {
  engagementId: string;
  tutorId: string;
  studentId: string;
  startDate: string;
  endDate: string | null;
  periods: EngagementPeriod[];
};

/** A row of spec §3's history list, in the API's units (pounds, fractions). */
/** A period as the API speaks it: pounds and fractions. */
export type PeriodRow = {
  rate: number;
  commissionRate: number;
  partnerRate: number;
  subjects: string[];
  startDate: string;
  endDate: string | null;
};

export type HistoryRow = PeriodRow & { latest: boolean };

export const initialState = (): EngagementState => ({ status: 'none' });

const twoDigits = (n: number) => (n < 10 ? `0${n}` : String(n));
const leap = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
const daysIn = (month: number, year: number) =>
  month === 2 ? (leap(year) ? 29 : 28) : month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;

export function dayBefore(date: string): string {
  // Worked out on the date's text, no Date made: a page of an engagement's history asks this of
  // every period, most of which start on the 1st.
  if (/^\d{4}-\d{2}-\d{2}$/.test(date)) {
    const dayOfMonth = Number(date.slice(8, 10));
    if (dayOfMonth > 1) return `${date.slice(0, 8)}${twoDigits(dayOfMonth - 1)}`;
    const year = Number(date.slice(0, 4));
    const month = Number(date.slice(5, 7));
    if (year > 1 && month >= 1 && month <= 12) {
      const [before, inYear] = month === 1 ? [12, year - 1] : [month - 1, year];
      return `${String(inYear).padStart(4, '0')}-${twoDigits(before)}-${daysIn(before, inYear)}`;
    }
  }
  const day = new Date(`${date}T00:00:00Z`);
  day.setUTCDate(day.getUTCDate() - 1);
  return day.toISOString().slice(0, 10);
}

const byStart = (a: StoredPeriod, b: StoredPeriod) => (a.startDate < b.startDate ? -1 : 1);

/** New values from `from` on: the period in force closes the day before and a new one opens. */
function changeFrom(periods: StoredPeriod[], from: string, change: Partial<StoredPeriod>): StoredPeriod[] {
  const before = periods.filter((period) => period.startDate < from);
  // A period that starts on `from` is the one in force then: it is amended, not replaced.
  const inForce = periods.find((period) => period.startDate === from) ?? before.at(-1) ?? periods[0];
  const after = periods.filter((period) => period.startDate > from);
  return [...before, { ...inForce, ...change, startDate: from }, ...after];
}

export function evolve(state: EngagementState, event: EngagementEvent): EngagementState {
  if (event.type === 'EngagementStarted') {
    const { engagementId, tutorId, studentId, startDate, ratePence, commissionBp, partnerBp, subjects } = event.data;
    return {
      status: 'ongoing',
      engagementId,
      tutorId,
      studentId,
      periods: [{ startDate, ratePence, commissionBp, partnerBp, subjects }],
    };
  }
  if (state.status === 'none') return state;
  switch (event.type) {
    case 'EngagementRatesChanged': {
      const { from, ratePence, commissionBp, partnerBp } = event.data;
      return { ...state, periods: changeFrom(state.periods, from, { ratePence, commissionBp, partnerBp }) };
    }
    case 'EngagementSubjectsChanged':
      return { ...state, periods: changeFrom(state.periods, event.data.from, { subjects: event.data.subjects }) };
    case 'EngagementPeriodCorrected': {
      const { periodStart, startDate, ratePence, commissionBp, partnerBp, subjects } = event.data;
      const corrected = { startDate, ratePence, commissionBp, partnerBp, subjects };
      const periods = state.periods.map((period) => (period.startDate === periodStart ? corrected : period));
      return { ...state, periods: periods.sort(byStart) };
    }
    case 'EngagementEnded':
      return { ...state, status: 'ended', endDate: event.data.endDate };
    default:
      // An event type this version does not know (written by a newer one): it changes nothing here.
      return state;
  }
}

/** The periods with their end dates, oldest first. */
export function periodsOf(state: EngagementState): EngagementPeriod[] {
  if (state.status === 'none') return [];
  const lastEnd = state.status === 'ended' ? state.endDate : null;
  return state.periods.map((period, index) => {
    const next = state.periods[index + 1];
    return { ...period, endDate: next ? dayBefore(next.startDate) : lastEnd };
  });
}

/** The period whose values apply on `date`, or undefined outside the engagement's life. */
export function periodInForce(periods: readonly EngagementPeriod[], date: string): EngagementPeriod | undefined {
  return periods.find((period) => period.startDate <= date && (period.endDate === null || date <= period.endDate));
}

/**
 * What an edit of an engagement changes from the date it takes effect: its terms, its subjects,
 * both, or nothing, compared with the period in force on that date (or the last period, for a
 * date past the end).
 */
export function changesFrom(
  state: EngagementState,
  edit: { from: string; terms: EngagementTerms; subjects: readonly string[] },
): ('rates' | 'subjects')[] {
  const periods = periodsOf(state);
  const inForce = periodInForce(periods, edit.from) ?? periods.at(-1);
  if (!inForce) return [];
  const { terms, subjects } = edit;
  const changes: ('rates' | 'subjects')[] = [];
  if (
    terms.ratePence !== inForce.ratePence ||
    terms.commissionBp !== inForce.commissionBp ||
    terms.partnerBp !== inForce.partnerBp
  ) {
    changes.push('rates');
  }
  const sameSubjects =
    subjects.length === inForce.subjects.length && subjects.every((subject, i) => subject === inForce.subjects[i]);
  if (!sameSubjects) changes.push('subjects');
  return changes;
}

/**
 * The first day whose terms (rate, commission, partner share) these events of an engagement may
 * change, or undefined when they change none: a rate change from its date; a corrected period
 * from the earlier of its old and new start. Lessons from that day on are priced again.
 */
export function termsChangedFrom(events: readonly EngagementEvent[]): string | undefined {
  const starts = events.flatMap((event) => {
    if (event.type === 'EngagementRatesChanged') return [event.data.from];
    if (event.type === 'EngagementPeriodCorrected') {
      const { periodStart, startDate } = event.data;
      return [periodStart < startDate ? periodStart : startDate];
    }
    return [];
  });
  return starts.sort()[0];
}

export function summaryOf(state: EngagementState): EngagementSummary | undefined {
  if (state.status === 'none') return undefined;
  const { engagementId, tutorId, studentId } = state;
  const startDate = state.periods[0].startDate;
  const endDate = state.status === 'ended' ? state.endDate : null;
  return { engagementId, tutorId, studentId, startDate, endDate, periods: periodsOf(state) };
}

export const periodRow = (period: EngagementPeriod): PeriodRow => ({
  rate: toPounds(period.ratePence),
  commissionRate: basisPointsToFraction(period.commissionBp),
  partnerRate: basisPointsToFraction(period.partnerBp),
  subjects: period.subjects,
  startDate: period.startDate,
  endDate: period.endDate,
});

/** Spec §3's history list, newest period first; the one in force last is marked `latest`. */
export function historyOf(state: EngagementState): HistoryRow[] {
  return historyRows(periodsOf(state));
}

/** The history list of periods already worked out (`periodsOf`, or a summary's). */
export function historyRows(periods: readonly EngagementPeriod[]): HistoryRow[] {
  return periods.map((period, index) => ({ ...periodRow(period), latest: index === periods.length - 1 })).reverse();
}

function checkTerms({ ratePence, commissionBp, partnerBp }: EngagementTerms) {
  if (typeof ratePence !== 'number' || !Number.isInteger(ratePence)) {
    throw new DomainError('invalid', 'The rate must be an amount in pounds.', { rate: 'Rate must be a number' });
  }
  if (ratePence < 0)
    throw new DomainError('invalid', 'The rate cannot be negative.', { rate: 'Rate cannot be negative' });
  checkPence(ratePence, { field: 'rate', label: 'Rate', max: LIMITS.maxRatePence });
  const percentage = (value: number, label: string, field: string) => {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 10_000) {
      const message = `${label} must be between 0 and 100`;
      throw new DomainError('invalid', `${message}.`, { [field]: message });
    }
  };
  percentage(commissionBp, 'Commission %', 'commissionPct');
  percentage(partnerBp, 'Partner %', 'partnerPct');
}

function checkSubjects(subjects: unknown) {
  checkList(subjects, subjectOptions.length, 'subjects', 'Subjects', (subject) =>
    checkText(subject, { field: 'subjects', label: 'A subject', required: true }),
  );
}

const sameTerms = (a: EngagementTerms, b: EngagementTerms) =>
  a.ratePence === b.ratePence && a.commissionBp === b.commissionBp && a.partnerBp === b.partnerBp;
const sameSubjects = (a: string[], b: string[]) => a.length === b.length && a.every((s, i) => s === b[i]);

/** A change from a date applies from the latest period on; earlier periods are corrected instead. */
function checkChangeDate(state: Extract<EngagementState, { status: 'ongoing' }>, from: string) {
  const start = state.periods[0].startDate;
  if (from < start) {
    throw new DomainError('invalid', `A change cannot take effect before the engagement started on ${start}.`, {
      startDate: `On or after ${start}`,
    });
  }
  const latest = state.periods.at(-1)!.startDate;
  if (from < latest) {
    throw new DomainError(
      'invalid',
      `A change must take effect on or after ${latest}, when the latest terms began; correct an earlier period from the history instead.`,
      { startDate: `On or after ${latest}` },
    );
  }
}

function refuseIfEnded(state: EngagementState) {
  if (state.status === 'none') throw new DomainError('not_found', 'There is no such engagement.');
  if (state.status === 'ended') {
    throw new DomainError('conflict', `This engagement ended on ${state.endDate}; it can no longer be changed.`);
  }
  return state;
}

/**
 * A change names the engagement's own tutor (another tutor's engagement is not found) and never
 * another student: a different student is a new engagement.
 */
export function checkChangeOf(
  state: EngagementState,
  asked: { tutorId: string; studentId?: string | null },
): asserts state is Exclude<EngagementState, { status: 'none' }> {
  if (state.status === 'none' || state.tutorId !== asked.tutorId) {
    throw new DomainError('not_found', 'There is no such engagement for this tutor.');
  }
  if (asked.studentId && asked.studentId !== state.studentId) {
    throw new DomainError('conflict', 'The student of an engagement cannot be changed; add a new student instead.', {
      studentId: 'The student cannot be changed',
    });
  }
}

export function decide(command: EngagementCommand, state: EngagementState, _now: Date): EngagementEvent[] {
  switch (command.type) {
    case 'StartEngagement': {
      if (state.status !== 'none') throw new DomainError('conflict', 'This engagement already exists.');
      if (command.otherOngoingWithSameStudent) {
        throw new DomainError('conflict', 'This tutor already has an ongoing engagement with this student.', {
          studentId: 'Already an ongoing student of this tutor',
        });
      }
      checkTerms(command);
      checkId(command.engagementId, 'id', 'The engagement id');
      checkId(command.tutorId, 'tutorId', 'The tutor id');
      checkId(command.studentId, 'studentId', 'The student id');
      checkDate(command.startDate, 'startDate');
      checkSubjects(command.subjects);
      const { engagementId, tutorId, studentId, startDate, ratePence, commissionBp, partnerBp, subjects } = command;
      return [
        {
          type: 'EngagementStarted',
          data: { engagementId, tutorId, studentId, startDate, ratePence, commissionBp, partnerBp, subjects },
        },
      ];
    }
    case 'ChangeRates': {
      const ongoing = refuseIfEnded(state);
      checkDate(command.from, 'startDate');
      checkChangeDate(ongoing, command.from);
      checkTerms(command);
      if (sameTerms(ongoing.periods.at(-1)!, command)) return [];
      const { from, ratePence, commissionBp, partnerBp } = command;
      return [
        {
          type: 'EngagementRatesChanged',
          data: { engagementId: ongoing.engagementId, from, ratePence, commissionBp, partnerBp },
        },
      ];
    }
    case 'ChangeSubjects': {
      const ongoing = refuseIfEnded(state);
      checkDate(command.from, 'startDate');
      checkSubjects(command.subjects);
      checkChangeDate(ongoing, command.from);
      if (sameSubjects(ongoing.periods.at(-1)!.subjects, command.subjects)) return [];
      const { from, subjects } = command;
      return [{ type: 'EngagementSubjectsChanged', data: { engagementId: ongoing.engagementId, from, subjects } }];
    }
    case 'CorrectPeriod':
      return correctPeriod(command, state);
    case 'TerminateEngagement': {
      const ongoing = refuseIfEnded(state);
      checkDate(command.endDate, 'endDate');
      const start = ongoing.periods[0].startDate;
      const latest = ongoing.periods.at(-1)!.startDate;
      if (command.endDate < start) {
        throw new DomainError('invalid', `The engagement cannot end before it started on ${start}.`, {
          endDate: `On or after ${start}`,
        });
      }
      if (command.endDate < latest) {
        throw new DomainError('invalid', `The engagement cannot end before its latest terms began on ${latest}.`, {
          endDate: `On or after ${latest}`,
        });
      }
      return [{ type: 'EngagementEnded', data: { engagementId: ongoing.engagementId, endDate: command.endDate } }];
    }
    default: {
      const _never: never = command;
      return _never;
    }
  }
}

/**
 * A correction edits one history period in place, also when the engagement has ended (the
 * history stays editable). Its start may move, but not past the start of the period before it
 * nor past its own end, so the periods still tile the engagement's life.
 */
function correctPeriod(
  command: Extract<EngagementCommand, { type: 'CorrectPeriod' }>,
  state: EngagementState,
): EngagementEvent[] {
  if (state.status === 'none') throw new DomainError('not_found', 'There is no such engagement.');
  checkDate(command.startDate, 'startDate');
  checkSubjects(command.subjects);
  const periods = periodsOf(state);
  const index = periods.findIndex((period) => period.startDate === command.periodStart);
  if (index < 0) throw new DomainError('not_found', `There is no period starting on ${command.periodStart}.`);
  const period = periods[index];
  const previous = periods[index - 1];
  if (previous && command.startDate <= previous.startDate) {
    throw new DomainError(
      'invalid',
      `This period must start after the period before it, which starts on ${previous.startDate}.`,
      { startDate: `After ${previous.startDate}` },
    );
  }
  if (period.endDate !== null && command.startDate > period.endDate) {
    const message =
      state.status === 'ended' && index === periods.length - 1
        ? `A change cannot take effect after the engagement ended on ${period.endDate}.`
        : `This period must start on or before its end, ${period.endDate}.`;
    throw new DomainError('invalid', message, { startDate: `On or before ${period.endDate}` });
  }
  checkTerms(command);
  if (
    command.startDate === period.startDate &&
    sameTerms(period, command) &&
    sameSubjects(period.subjects, command.subjects)
  ) {
    return [];
  }
  const { periodStart, startDate, ratePence, commissionBp, partnerBp, subjects } = command;
  return [
    {
      type: 'EngagementPeriodCorrected',
      data: { engagementId: state.engagementId, periodStart, startDate, ratePence, commissionBp, partnerBp, subjects },
    },
  ];
}

export const engagementDecider: Decider<EngagementCommand, EngagementEvent, EngagementState> = {
  initialState,
  evolve,
  decide,
};

export const engagementStream = (engagementId: string) => `engagement-${engagementId}`;

export { startFromRoster } from './start-from-roster';
