import type { LessonDetails } from '@agency/contracts';
import { type EngagementSummary, periodInForce } from '../engagement/engagement';
import { toHours, toPounds } from '../shared/money';

/**
 * The lesson entry grid (spec §3 "Lesson grid"): one row per engagement alive in the range,
 * one cell per date. Both services build it with this one function, so the answer to a saved
 * lesson and the GET of the week have the same shape by construction.
 */
export type GridCell = {
  date: string;
  /** Present when a lesson is recorded on this date. */
  id?: string;
  duration: number;
  amount: number;
  amountEdited: boolean;
  locked: boolean;
  /** Whether the engagement runs on this date (a lesson may be recorded here). */
  open: boolean;
  /** The rate in force on this date (pounds), for a new lesson's default amount; null outside the engagement. */
  rate: number | null;
};

export type GridRow = {
  engagementId: string;
  studentId: string;
  studentName: string;
  /** The rate in force on the last date of the range the engagement covers (pounds). */
  rate: number;
  startDate: string;
  endDate: string | null;
  lessons: GridCell[];
};

export type TimesheetGrid = { month: string; dates: string[]; students: GridRow[]; locked: boolean };

const DAY_MS = 86_400_000;
const toDate = (date: string) => new Date(`${date}T00:00:00Z`);
const fromDate = (date: Date) => date.toISOString().slice(0, 10);

export const addDays = (date: string, days: number) => fromDate(new Date(toDate(date).getTime() + days * DAY_MS));

/** The first and last date of a `YYYY-MM` month. */
export function monthBounds(month: string): { first: string; last: string } {
  const [year, monthNumber] = month.split('-').map(Number);
  const last = new Date(Date.UTC(year, monthNumber, 0));
  return { first: `${month}-01`, last: fromDate(last) };
}

/** The Monday on or before `date` (weeks start on Monday). */
export function mondayOf(date: string): string {
  const weekday = (toDate(date).getUTCDay() + 6) % 7;
  return addDays(date, -weekday);
}

/** The Monday-to-Sunday week holding `date`, limited to `month`: the grid never crosses a month. */
export function weekInMonth(date: string, month: string): { from: string; to: string } {
  const { first, last } = monthBounds(month);
  const monday = mondayOf(date);
  const sunday = addDays(monday, 6);
  return { from: monday < first ? first : monday, to: sunday > last ? last : sunday };
}

/** Every date from `from` to `to` that falls in `month`, in order. */
export function datesInMonth(from: string, to: string, month: string): string[] {
  const { first, last } = monthBounds(month);
  const start = from < first ? first : from;
  const end = to > last ? last : to;
  const dates: string[] = [];
  for (let date = start; date <= end && dates.length < 31; date = addDays(date, 1)) dates.push(date);
  return dates;
}

export type GridEngagement = { summary: EngagementSummary; studentName: string };

const alive = (summary: EngagementSummary, from: string, to: string) =>
  summary.startDate <= to && (summary.endDate === null || summary.endDate >= from);

/**
 * `lessons` are the month's lessons (any range; only the grid's dates are used); `locked` says
 * whether the month was invoiced. Rows are engagements alive in the range or holding a lesson
 * in it, ordered by student name.
 */
export function timesheetGrid(input: {
  month: string;
  from: string;
  to: string;
  engagements: readonly GridEngagement[];
  lessons: readonly LessonDetails[];
  locked: boolean;
}): TimesheetGrid {
  const { month, engagements, lessons, locked } = input;
  const dates = datesInMonth(input.from, input.to, month);
  const from = dates[0] ?? input.from;
  const to = dates.at(-1) ?? input.to;
  const inRange = lessons.filter((lesson) => lesson.date >= from && lesson.date <= to);
  const students = engagements
    .filter(
      ({ summary }) =>
        dates.length > 0 &&
        (alive(summary, from, to) || inRange.some((lesson) => lesson.engagementId === summary.engagementId)),
    )
    .map(({ summary, studentName }): GridRow => {
      const lastDay = summary.endDate !== null && summary.endDate < to ? summary.endDate : to;
      const period = periodInForce(summary.periods, lastDay) ?? summary.periods.at(-1);
      return {
        engagementId: summary.engagementId,
        studentId: summary.studentId,
        studentName,
        rate: toPounds(period?.ratePence ?? 0),
        startDate: summary.startDate,
        endDate: summary.endDate,
        lessons: dates.map((date): GridCell => {
          const inForce = periodInForce(summary.periods, date);
          const lesson = inRange.find((l) => l.engagementId === summary.engagementId && l.date === date);
          return {
            date,
            ...(lesson ? { id: lesson.lessonId } : {}),
            duration: lesson ? toHours(lesson.duration) : 0,
            amount: lesson ? toPounds(lesson.amountPence) : 0,
            amountEdited: lesson?.amountEdited ?? false,
            locked,
            open: inForce !== undefined,
            rate: inForce ? toPounds(inForce.ratePence) : null,
          };
        }),
      };
    })
    .sort((a, b) => a.studentName.localeCompare(b.studentName) || (a.engagementId < b.engagementId ? -1 : 1));
  return { month, dates, students, locked };
}

/**
 * The grid records at most one lesson per engagement and day, so a new lesson's id is derived
 * from both: two people typing into the same empty cell at once make the same lesson, and the
 * second gets a conflict instead of a silent duplicate.
 */
export const gridLessonId = (engagementId: string, date: string) => `${engagementId}.${date}`;
