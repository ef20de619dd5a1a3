import { calendarDate, calendarMonth, lessonBody } from '@agency/contracts';
import { engagement, timesheet, toHundredths, toPence } from '@agency/domain';
import { weekInMonth } from '@agency/domain/timesheet/week';
import { HttpError, notFound } from '@agency/platform';
import type { FastifyInstance } from 'fastify';
import { type CommandDependencies, commandRoute } from '../pipeline/command-pipeline';

const { engagementDecider, engagementStream, summaryOf } = engagement;
const { timesheetDecider, timesheetStream, checkMayRecordFor, cellLessonId } = timesheet;

/** The week the answer shows: the one asked for, else the lesson's own week of its month. */
const rangeQuery = (query: Record<string, string>, date: string) => {
  const month = query.month || date.slice(0, 7);
  const week = weekInMonth(date, date.slice(0, 7));
  const from = query.from || week.from;
  const to = query.to || week.to;
  for (const [name, value] of Object.entries({ from, to })) {
    if (!calendarDate.safeParse(value).success) {
      throw new HttpError(400, 'invalid_input', `${name} must be a date like 2026-03-02`, { [name]: 'Not a date' });
    }
  }
  if (!calendarMonth.safeParse(month).success) {
    throw new HttpError(400, 'invalid_input', 'month must be a month like 2026-03', { month: 'Not a month' });
  }
  return { month, from, to };
};

/**
 * `POST /api/lessons/lesson`: the grid's save of one cell, decided by the timesheet
 * (`SaveLessonCell`). The answer is the saved lesson and, as the spec asks, the week's grid: that
 * view is the query side's GET /api/lessons/timesheet, asked once the save shows there.
 */
export async function lessonRoutes(app: FastifyInstance, { deps }: { deps: CommandDependencies }) {
  commandRoute(app, deps, {
    url: '/api/lessons/lesson',
    roles: ['admin', 'partner', 'tutor'],
    body: lessonBody,
    handle: async ({ body, query }, { run, load, user }) => {
      const actor = { role: user.role, tutorId: user.tutorId ?? null };
      checkMayRecordFor(actor, body.tutorId);
      const { lesson } = body;
      rangeQuery(query, lesson.date);
      const summary = summaryOf(await load(engagementStream(lesson.engagementId), engagementDecider));
      if (!summary) throw notFound('There is no such engagement.');
      const cell = {
        type: 'SaveLessonCell' as const,
        tutorId: body.tutorId,
        month: lesson.date.slice(0, 7),
        lessonId: lesson.id,
        engagement: summary,
        date: lesson.date,
        duration: toHundredths(lesson.duration),
        amountPence: lesson.amount === undefined ? undefined : toPence(lesson.amount),
        actor,
      };
      const state = await run(timesheetStream(body.tutorId, cell.month), timesheetDecider, cell);
      const saved = state.lessons.get(cellLessonId(cell));
      return {
        lesson: saved
          ? { id: saved.lessonId, date: saved.date, duration: saved.duration / 100, amount: saved.amountPence / 100 }
          : null,
      };
    },
    view: ({ body, query }, _answer, views) =>
      views.timesheet({ ...rangeQuery(query, body.lesson.date), tutorId: body.tutorId }),
  });
}
