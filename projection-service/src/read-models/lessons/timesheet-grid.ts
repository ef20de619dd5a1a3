import type { GridCell, GridRow, LessonDetails, TimesheetGrid } from '@agency/contracts';
import { engagement, toHours, toPounds } from '@agency/domain';
import { datesInMonth } from '@agency/domain/timesheet/week';

/**
 * The lesson entry grid (spec §3 "Lesson grid") of GET /api/lessons/timesheet, the one place it
 * is built: the lesson save answers with this same view, asked of this service.
 */
export type GridEngagement = { summary: engagement.EngagementSummary; studentName: string };

const alive = (summary: engagement.EngagementSummary, from: string, to: string) =>
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
      const period = engagement.periodInForce(summary.periods, lastDay) ?? summary.periods.at(-1);
      return {
        engagementId: summary.engagementId,
        studentId: summary.studentId,
        studentName,
        rate: toPounds(period?.ratePence ?? 0),
        startDate: summary.startDate,
        endDate: summary.endDate,
        lessons: dates.map((date): GridCell => {
          const inForce = engagement.periodInForce(summary.periods, date);
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
