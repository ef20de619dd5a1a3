import type {
  GridCell,
  GridRow,
  LessonListAnswer,
  LessonView,
  TimesheetAnswer,
  TutorListAnswer,
  TutorListItem,
} from '@agency/contracts';
import { PAGE_SIZE } from '../../components/pager';
import { withAsOf } from '../../lib/as-of';
import { getJson, postJson } from '../../lib/http';

export type { GridCell, GridRow };

export type Lesson = LessonView;

export type LessonsMonth = LessonListAnswer;

export type LessonsQuery = { year: number; month: number; tutorId?: string };

/** The week's grid: `month` is YYYY-MM, `from`/`to` the week's dates within it. */
export type WeekQuery = { tutorId: string; month: string; from: string; to: string };

/** The week's grid as the lesson save answers it back (the query's answer names its tutor and month too). */
export type Timesheet = Pick<TimesheetAnswer, 'dates' | 'students' | 'locked'>;

export type TutorOption = Pick<TutorListItem, 'id' | 'name'>;

export type LessonInput = {
  id?: string;
  engagementId: string;
  date: string;
  duration: number | string;
  amount?: string;
};

const weekParams = ({ tutorId, month, from, to }: WeekQuery) =>
  new URLSearchParams({ from, to, month, tutorId }).toString();

/** One page of the month's lessons (`cursor`: the previous page's `nextCursor`); the totals are the month's. */
export function fetchLessons(query: LessonsQuery & { asOf?: string; cursor?: string }, signal?: AbortSignal) {
  const params = new URLSearchParams({
    year: String(query.year),
    month: String(query.month),
    tutorId: query.tutorId ?? '',
    limit: String(PAGE_SIZE),
  });
  if (query.cursor) params.set('cursor', query.cursor);
  return getJson<LessonsMonth>(`/api/lessons?${withAsOf(params, query.asOf)}`, signal);
}

export const fetchTimesheet = (query: WeekQuery, signal?: AbortSignal) =>
  getJson<TimesheetAnswer>(`/api/lessons/timesheet?${weekParams(query)}`, signal);

/** Saves one cell; the answer is the week's grid as it now stands. */
export const saveLesson = (query: WeekQuery, lesson: LessonInput, commandId: string) =>
  postJson<Timesheet & { lesson: { id: string } | null }>(`/api/lessons/lesson?${weekParams(query)}`, {
    commandId,
    tutorId: query.tutorId,
    lesson,
  });

export const fetchTutorOptions = (signal?: AbortSignal) =>
  getJson<TutorListAnswer>('/api/tutors?includeInactive=Y', signal).then((answer): TutorOption[] => answer.tutors);
