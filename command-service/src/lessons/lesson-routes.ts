import { calendarDate, type LessonBody, lessonBody } from '@agency/contracts';
import { DomainError, engagement, type Hundredths, type Pence, timesheet, toHundredths, toPence } from '@agency/domain';
import { type GridEngagement, gridLessonId, timesheetGrid, weekInMonth } from '@agency/domain/timesheet/timesheet-grid';
import { HttpError, notFound } from '@agency/platform';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { type CommandDependencies, commandRoute } from '../pipeline/command-pipeline';

const { engagementDecider, engagementStream, summaryOf } = engagement;
const { timesheetDecider, timesheetStream, checkMayRecordFor } = timesheet;

type Wanted = { lessonId: string; given: boolean; duration: Hundredths; amountPence?: Pence };

/**
 * The grid's save, decided against the timesheet as it is when the pipeline runs it (again on
 * a retry), so the choice between recording and changing never rests on a stale read.
 * Without an id the cell was empty when the user typed: if someone has recorded it meanwhile,
 * that is a conflict the UI resolves by reloading the cell, not a silent overwrite.
 */
type LessonKey = Omit<
  Extract<timesheet.TimesheetCommand, { type: 'RecordLesson' }>,
  'type' | 'lessonId' | 'duration' | 'amountPence'
>;

function gridDecider(base: LessonKey, wanted: Wanted) {
  return {
    ...timesheetDecider,
    decide: (_: unknown, state: timesheet.TimesheetState, now: Date) => {
      const recorded = state.lessons.get(wanted.lessonId);
      if (!recorded) {
        if (wanted.given) throw new DomainError('not_found', 'There is no such lesson on this timesheet.');
        return timesheetDecider.decide(
          {
            ...base,
            type: 'RecordLesson',
            lessonId: wanted.lessonId,
            duration: wanted.duration,
            amountPence: wanted.amountPence,
          },
          state,
          now,
        );
      }
      if (!wanted.given && state.status === 'open') {
        throw new DomainError(
          'conflict',
          `Someone else has just recorded a lesson with this student on ${base.date}. The cell has been reloaded.`,
        );
      }
      // An amount typed earlier survives a save that leaves the duration as it was.
      const keepAmount = recorded.amountEdited && recorded.duration === wanted.duration;
      return timesheetDecider.decide(
        {
          ...base,
          type: 'ChangeLesson',
          lessonId: wanted.lessonId,
          duration: wanted.duration,
          amountPence: wanted.amountPence ?? (keepAmount ? recorded.amountPence : undefined),
        },
        state,
        now,
      );
    },
  };
}

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
  if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(month)) {
    throw new HttpError(400, 'invalid_input', 'month must be a month like 2026-03', { month: 'Not a month' });
  }
  return { month, from, to };
};

/** The tutor's engagements with student names, from the engagement read model (its folded state). */
export async function engagementsOfTutor(db: pg.Pool, tutorId: string): Promise<GridEngagement[]> {
  const found = await db.query(
    `select e.state, coalesce(ch.first_name || ' ' || ch.last_name, '') as student_name
       from read.engagements e left join read.children ch on ch.id = e.student_id
      where e.tutor_id = $1`,
    [tutorId],
  );
  return found.rows.flatMap((row) => {
    const summary = summaryOf(row.state);
    return summary ? [{ summary, studentName: row.student_name }] : [];
  });
}

export async function lessonRoutes(app: FastifyInstance, { deps, db }: { deps: CommandDependencies; db: pg.Pool }) {
  commandRoute(app, deps, {
    url: '/api/lessons/lesson',
    roles: ['admin', 'partner', 'tutor'],
    body: lessonBody,
    handle: async ({ body, query }: { body: LessonBody; query: Record<string, string> }, { run, load, user }) => {
      const actor = { role: user.role, tutorId: user.tutorId ?? null };
      checkMayRecordFor(actor, body.tutorId);
      const { lesson } = body;
      const range = rangeQuery(query, lesson.date);
      const summary = summaryOf(await load(engagementStream(lesson.engagementId), engagementDecider));
      if (!summary) throw notFound('There is no such engagement.');
      const month = lesson.date.slice(0, 7);
      const wanted: Wanted = {
        lessonId: lesson.id ?? gridLessonId(lesson.engagementId, lesson.date),
        given: lesson.id !== undefined,
        duration: toHundredths(lesson.duration),
        amountPence: lesson.amount === undefined ? undefined : toPence(lesson.amount),
      };
      const base = { tutorId: body.tutorId, month, engagement: summary, date: lesson.date, actor };
      const state = await run(timesheetStream(body.tutorId, month), gridDecider(base, wanted), null);
      const saved = state.lessons.get(wanted.lessonId);
      // The grid of the range asked for, built from the timesheet just decided: what the GET will show.
      const shown =
        range.month === month ? state : await load(timesheetStream(body.tutorId, range.month), timesheetDecider);
      const grid = timesheetGrid({
        ...range,
        engagements: await engagementsOfTutor(db, body.tutorId),
        lessons: timesheet.lessonsOf(shown),
        locked: shown.status === 'locked',
      });
      return {
        lesson: saved
          ? { id: saved.lessonId, date: saved.date, duration: saved.duration / 100, amount: saved.amountPence / 100 }
          : null,
        ...grid,
      };
    },
  });
}
