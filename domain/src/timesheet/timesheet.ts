import { type LessonDetails, type LessonEvent, LIMITS, type Role } from '@agency/contracts';
import { type EngagementSummary, periodInForce } from '../engagement/engagement';
import { type Decider, DomainError } from '../shared/decider';
import { checkDate, checkDuration, checkId, checkPence } from '../shared/limits';
import {
  commissionOf,
  formatPounds,
  type Hundredths,
  lessonAmount,
  type Pence,
  partnerCommissionOf,
  toHours,
} from '../shared/money';

/**
 * One tutor's lessons for one calendar month. The stream is `timesheet-{tutorId}-{yyyy-mm}`:
 * small enough that loading it is quick and two writers rarely meet, large enough that the
 * 12-hours-a-day rule and the invoice lock are checked inside one consistency boundary.
 */
export type TimesheetState =
  | { status: 'open'; lessons: ReadonlyMap<string, LessonDetails> }
  | { status: 'locked'; lessons: ReadonlyMap<string, LessonDetails>; invoiceId: string };

/** Who is acting: an admin, or a tutor or partner tied to a tutor id. */
export type Actor = { role: Role; tutorId?: string | null };

type TimesheetKey = { tutorId: string; month: string };

/**
 * `engagement` is a lookup result (the engagement's summary, read from its own stream) and
 * `actor` the session's user. Durations are hundredths of an hour, amounts pence.
 */
export type TimesheetCommand =
  | (TimesheetKey & {
      type: 'RecordLesson';
      lessonId: string;
      engagement: EngagementSummary;
      date: string;
      /** Defaults to 1 hour. */
      duration?: Hundredths;
      /** Only when typed directly; otherwise duration × rate. */
      amountPence?: Pence;
      actor: Actor;
    })
  | (TimesheetKey & {
      type: 'ChangeLesson';
      lessonId: string;
      engagement: EngagementSummary;
      date: string;
      /** 0 removes the lesson. */
      duration: Hundredths;
      amountPence?: Pence;
      actor: Actor;
    })
  | (TimesheetKey & {
      /**
       * The grid's save of one cell: records the lesson or changes it. `lessonId` is the id the
       * cell showed; absent when the cell was empty as the user typed.
       */
      type: 'SaveLessonCell';
      lessonId?: string;
      engagement: EngagementSummary;
      date: string;
      /** 0 removes the lesson. */
      duration: Hundredths;
      amountPence?: Pence;
      actor: Actor;
    })
  | (TimesheetKey & { type: 'RemoveLesson'; lessonId: string; actor: Actor })
  /**
   * The month is invoiced: its lessons are frozen, and the invoice follows from this lock. `again`:
   * the month is locked already but no invoice followed (a lock recorded before invoices followed
   * locks, whose generation died half-way): the lock is recorded again, so that one follows it.
   */
  | (TimesheetKey & { type: 'LockMonth'; invoiceId: string; again?: boolean })
  /** The month's invoice was withdrawn: only the lock of that invoice is lifted. */
  | (TimesheetKey & { type: 'UnlockMonth'; invoiceId: string })
  /**
   * The engagement's terms changed from `from`: its lessons on or after that date are priced again
   * by the period in force on each one's date (`engagement`, read from its own stream).
   */
  | (TimesheetKey & { type: 'RepriceLessons'; engagement: EngagementSummary; from: string });

export const DEFAULT_DURATION: Hundredths = 100;
export const MAX_HOURS_A_DAY_WITH_ONE_STUDENT = 12;

export const initialState = (): TimesheetState => ({ status: 'open', lessons: new Map() });

export function evolve(state: TimesheetState, event: LessonEvent): TimesheetState {
  switch (event.type) {
    case 'LessonRecorded':
    case 'LessonChanged':
      return { ...state, lessons: new Map(state.lessons).set(event.data.lesson.lessonId, event.data.lesson) };
    case 'LessonRemoved': {
      const lessons = new Map(state.lessons);
      lessons.delete(event.data.lessonId);
      return { ...state, lessons };
    }
    case 'LessonsRepriced': {
      const lessons = new Map(state.lessons);
      for (const lesson of event.data.lessons) lessons.set(lesson.lessonId, lesson);
      return { ...state, lessons };
    }
    case 'TimesheetMonthLocked':
      return { status: 'locked', lessons: state.lessons, invoiceId: event.data.invoiceId };
    case 'TimesheetMonthUnlocked':
      return { status: 'open', lessons: state.lessons };
    default:
      // An event type this version does not know (written by a newer one): it changes nothing here.
      return state;
  }
}

/** The month's lessons in date order. */
export function lessonsOf(state: TimesheetState): LessonDetails[] {
  return [...state.lessons.values()].sort((a, b) =>
    a.date === b.date ? (a.lessonId < b.lessonId ? -1 : 1) : a.date < b.date ? -1 : 1,
  );
}

export type LessonTotals = { amountPence: Pence; commissionPence: Pence; partnerCommissionPence: Pence };

/** The totals row of the lessons month view: plain sums of the lessons, never recomputed. */
export function totalsOf(lessons: readonly LessonDetails[]): LessonTotals {
  return lessons.reduce(
    (totals, lesson) => ({
      amountPence: totals.amountPence + lesson.amountPence,
      commissionPence: totals.commissionPence + lesson.commissionPence,
      partnerCommissionPence: totals.partnerCommissionPence + lesson.partnerCommissionPence,
    }),
    { amountPence: 0, commissionPence: 0, partnerCommissionPence: 0 },
  );
}

const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** '2026-03' → 'March 2026'. */
export const monthName = (month: string) => `${MONTH_NAMES[Number(month.slice(5, 7)) - 1]} ${month.slice(0, 4)}`;

/** Spec §5/§6: an admin records for anyone; a tutor for self; a partner for their own tutor id. */
export function mayRecordFor(actor: Actor, tutorId: string): boolean {
  return actor.role === 'admin' || actor.tutorId === tutorId;
}

export function checkMayRecordFor(actor: Actor, tutorId: string) {
  if (mayRecordFor(actor, tutorId)) return;
  throw new DomainError(
    'forbidden',
    actor.role === 'partner'
      ? 'A partner can record lessons only for their own tutor.'
      : 'A tutor can record lessons only on their own timesheet.',
  );
}

function checkOpen(state: TimesheetState, month: string) {
  if (state.status === 'locked') {
    throw new DomainError('locked', `The lessons of ${monthName(month)} are locked: the month has been invoiced.`);
  }
}

/** Prices a lesson with the engagement period in force on its date: amount, commission, partner share. */
export function priceLesson(input: {
  lessonId: string;
  engagement: EngagementSummary;
  date: string;
  duration: Hundredths;
  amountPence?: Pence;
}): LessonDetails {
  const { lessonId, engagement, date, duration, amountPence } = input;
  const period = periodInForce(engagement.periods, date);
  if (!period) {
    const life = engagement.endDate
      ? `from ${engagement.startDate} to ${engagement.endDate}`
      : `from ${engagement.startDate}`;
    throw new DomainError('invalid', `There is no engagement with this student on ${date}: it runs ${life}.`, {
      date: 'Outside the engagement',
    });
  }
  const amountEdited = amountPence !== undefined;
  const amount = amountPence ?? lessonAmount(duration, period.ratePence);
  if (amount > LIMITS.maxMoneyPence) {
    const message = `A lesson cannot be worth more than ${formatPounds(LIMITS.maxMoneyPence)}`;
    throw new DomainError(
      'invalid',
      `${message}: ${toHours(duration)} hours at ${formatPounds(period.ratePence)} an hour is ${formatPounds(amount)}.`,
      {
        [amountEdited ? 'amount' : 'duration']: message,
      },
    );
  }
  const commission = commissionOf(amount, period.commissionBp);
  return {
    lessonId,
    engagementId: engagement.engagementId,
    studentId: engagement.studentId,
    date,
    duration,
    ratePence: period.ratePence,
    amountPence: amount,
    amountEdited,
    commissionBp: period.commissionBp,
    commissionPence: commission,
    partnerBp: period.partnerBp,
    partnerCommissionPence: partnerCommissionOf(commission, period.partnerBp),
  };
}

function checkLesson(
  state: TimesheetState,
  command: TimesheetKey & {
    lessonId: string;
    engagement: EngagementSummary;
    date: string;
    duration: Hundredths;
    amountPence?: Pence;
  },
) {
  const { tutorId, month, engagement, date, duration, amountPence } = command;
  if (engagement.tutorId !== tutorId) {
    throw new DomainError('invalid', "This engagement is not one of this tutor's.", { engagementId: 'Not this tutor' });
  }
  if (date.slice(0, 7) !== month) {
    throw new DomainError('invalid', `${date} is not in ${monthName(month)}; record it on that month's timesheet.`, {
      date: `Not in ${monthName(month)}`,
    });
  }
  checkId(command.lessonId, 'id', 'The lesson id');
  checkDate(date, 'date');
  checkDuration(duration);
  if (amountPence !== undefined) checkPence(amountPence, { field: 'amount', label: 'Amount' });
  // The student's other lessons that day, summed in one pass (this runs on every save of a month's grid).
  let hours = duration;
  for (const lesson of state.lessons.values()) {
    if (lesson.lessonId !== command.lessonId && lesson.studentId === engagement.studentId && lesson.date === date) {
      hours += lesson.duration;
    }
  }
  if (hours > MAX_HOURS_A_DAY_WITH_ONE_STUDENT * 100) {
    throw new DomainError(
      'invalid',
      `No more than ${MAX_HOURS_A_DAY_WITH_ONE_STUDENT} hours of lessons a day with one student.`,
      { duration: `${MAX_HOURS_A_DAY_WITH_ONE_STUDENT} hours a day at most` },
    );
  }
}

const sameLesson = (a: LessonDetails, b: LessonDetails) =>
  (Object.keys(a) as (keyof LessonDetails)[]).every((key) => a[key] === b[key]);

/**
 * The lessons of `engagement` on or after `from` in this month that its periods now price
 * otherwise, with their new values, in date order. A lesson keeps an amount someone typed (its
 * commission follows the period); a lesson no period covers (after an end moved earlier) is left
 * as it is. The rule of the product: a lesson is priced by the period in force on its date.
 */
export function lessonsToReprice(state: TimesheetState, engagement: EngagementSummary, from: string): LessonDetails[] {
  const changed: LessonDetails[] = [];
  for (const lesson of lessonsOf(state)) {
    if (lesson.engagementId !== engagement.engagementId || lesson.date < from) continue;
    if (!periodInForce(engagement.periods, lesson.date)) continue;
    const repriced = priceLesson({
      lessonId: lesson.lessonId,
      engagement,
      date: lesson.date,
      duration: lesson.duration,
      amountPence: lesson.amountEdited ? lesson.amountPence : undefined,
    });
    if (!sameLesson(lesson, repriced)) changed.push(repriced);
  }
  return changed;
}

export function decide(command: TimesheetCommand, state: TimesheetState, now: Date): LessonEvent[] {
  const { tutorId, month } = command;
  switch (command.type) {
    case 'RecordLesson': {
      checkMayRecordFor(command.actor, tutorId);
      checkOpen(state, month);
      if (state.lessons.has(command.lessonId)) throw new DomainError('conflict', 'This lesson is already recorded.');
      const withDuration = { ...command, duration: command.duration ?? DEFAULT_DURATION };
      checkLesson(state, withDuration);
      if (withDuration.duration === 0) return [];
      const lesson = priceLesson(withDuration);
      return [{ type: 'LessonRecorded', data: { tutorId, month, lesson } }];
    }
    case 'ChangeLesson': {
      checkMayRecordFor(command.actor, tutorId);
      checkOpen(state, month);
      const recorded = state.lessons.get(command.lessonId);
      if (!recorded) throw new DomainError('not_found', 'There is no such lesson on this timesheet.');
      if (recorded.engagementId !== command.engagement.engagementId) {
        throw new DomainError('invalid', 'A lesson cannot move to another student; remove it and record a new one.');
      }
      checkLesson(state, command);
      if (command.duration === 0)
        return [{ type: 'LessonRemoved', data: { tutorId, month, lessonId: recorded.lessonId } }];
      const lesson = priceLesson(command);
      if (sameLesson(recorded, lesson)) return [];
      return [{ type: 'LessonChanged', data: { tutorId, month, lesson } }];
    }
    case 'SaveLessonCell': {
      // Decided on the timesheet as it is now (again on a retry), so the choice between recording
      // and changing never rests on what the user's screen showed some time ago.
      // The cell's own fields with the lesson id replaced (a spread, not a rest: the grid saves often).
      const shown = command.lessonId;
      const lessonId = cellLessonId(command);
      const recorded = state.lessons.get(lessonId);
      if (!recorded) {
        if (shown !== undefined) throw new DomainError('not_found', 'There is no such lesson on this timesheet.');
        return decide({ ...command, type: 'RecordLesson', lessonId }, state, now);
      }
      if (shown === undefined && state.status === 'open') {
        // The cell was empty when the user typed: someone filled it meanwhile. Never a silent overwrite.
        throw new DomainError(
          'conflict',
          `Someone else has just recorded a lesson with this student on ${command.date}. The cell has been reloaded.`,
        );
      }
      // An amount typed earlier survives a save that leaves the duration as it was.
      const keepAmount = recorded.amountEdited && recorded.duration === command.duration;
      const amountPence = command.amountPence ?? (keepAmount ? recorded.amountPence : undefined);
      return decide({ ...command, type: 'ChangeLesson', lessonId, amountPence }, state, now);
    }
    case 'RemoveLesson': {
      checkMayRecordFor(command.actor, tutorId);
      checkOpen(state, month);
      if (!state.lessons.has(command.lessonId)) {
        throw new DomainError('not_found', 'There is no such lesson on this timesheet.');
      }
      return [{ type: 'LessonRemoved', data: { tutorId, month, lessonId: command.lessonId } }];
    }
    case 'LockMonth': {
      const locked: LessonEvent = {
        type: 'TimesheetMonthLocked',
        data: { tutorId, month, invoiceId: command.invoiceId },
      };
      if (state.status !== 'locked') return [locked];
      return command.again && state.invoiceId === command.invoiceId ? [locked] : [];
    }
    case 'UnlockMonth':
      if (state.status !== 'locked' || state.invoiceId !== command.invoiceId) return [];
      return [{ type: 'TimesheetMonthUnlocked', data: { tutorId, month, invoiceId: command.invoiceId } }];
    case 'RepriceLessons': {
      const { engagement, from } = command;
      if (engagement.tutorId !== tutorId) {
        throw new DomainError('invalid', "This engagement is not one of this tutor's.", {
          engagementId: 'Not this tutor',
        });
      }
      const lessons = lessonsToReprice(state, engagement, from);
      if (lessons.length === 0) return [];
      // An invoiced month's lessons never change: the engagement's change is refused before it is
      // recorded when it would reach them (see `invoicedMonthsRefusal`).
      checkOpen(state, month);
      const { engagementId } = engagement;
      return [{ type: 'LessonsRepriced', data: { tutorId, month, engagementId, from, lessons } }];
    }
    default: {
      const _never: never = command;
      return _never;
    }
  }
}

export const timesheetDecider: Decider<TimesheetCommand, LessonEvent, TimesheetState> = {
  initialState,
  evolve,
  decide,
};

/** `month` is `YYYY-MM`. */
export const timesheetStream = (tutorId: string, month: string) => `timesheet-${tutorId}-${month}`;

/**
 * The grid records at most one lesson per engagement and day, so a new lesson's id is derived
 * from both: two people typing into the same empty cell at once make the same lesson, and the
 * second gets a conflict instead of a silent duplicate.
 */
export const gridLessonId = (engagementId: string, date: string) => `${engagementId}.${date}`;

/** The lesson a grid cell saves: the one it showed, or the cell's own for an empty cell. */
export const cellLessonId = (cell: { lessonId?: string; engagement: { engagementId: string }; date: string }) =>
  cell.lessonId ?? gridLessonId(cell.engagement.engagementId, cell.date);

export * from './repricing';
