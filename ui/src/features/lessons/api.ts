import type { GridCell, GridRow } from '@agency/contracts';
import { getJson, postJson } from '../../lib/http';

export type { GridCell, GridRow };

export type Lesson = {
  id: string;
  date: string;
  tutor: string;
  tutorId: string;
  student: string;
  studentId: string;
  engagementId: string;
  duration: number;
  rate: number;
  amount: number;
  commission: number;
  /** Absent from a tutor's answer (contracts/visibility.ts). */
  partnerCommission?: number;
  locked: boolean;
};

export type LessonsMonth = {
  lessons: Lesson[];
  totals: { amount: number; commission: number; partnerCommission?: number };
  canAddLessons: boolean;
};

export type LessonsQuery = { year: number; month: number; tutorId?: string };

/** The week's grid: `month` is YYYY-MM, `from`/`to` the week's dates within it. */
export type WeekQuery = { tutorId: string; month: string; from: string; to: string };

export type Timesheet = { dates: string[]; students: GridRow[]; locked: boolean };

export type TutorOption = { id: string; name: string };

export type LessonInput = {
  id?: string;
  engagementId: string;
  date: string;
  duration: number | string;
  amount?: string;
};

const weekParams = ({ tutorId, month, from, to }: WeekQuery) =>
  new URLSearchParams({ from, to, month, tutorId }).toString();

export const fetchLessons = ({ year, month, tutorId }: LessonsQuery, signal?: AbortSignal) =>
  getJson<LessonsMonth>(
    `/api/lessons?${new URLSearchParams({ year: String(year), month: String(month), tutorId: tutorId ?? '' })}`,
    signal,
  );

export const fetchTimesheet = (query: WeekQuery, signal?: AbortSignal) =>
  getJson<Timesheet>(`/api/lessons/timesheet?${weekParams(query)}`, signal);

/** Saves one cell; the answer is the week's grid as it now stands. */
export const saveLesson = (query: WeekQuery, lesson: LessonInput, commandId: string) =>
  postJson<Timesheet & { lesson: { id: string } | null }>(`/api/lessons/lesson?${weekParams(query)}`, {
    commandId,
    tutorId: query.tutorId,
    lesson,
  });

export const fetchTutorOptions = (signal?: AbortSignal) =>
  getJson<{ tutors: TutorOption[] }>('/api/tutors?includeInactive=Y', signal).then((answer) => answer.tutors);
