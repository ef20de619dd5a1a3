import type {
  ClientChildrenAnswer,
  EngagementAnswer,
  EngagementView,
  HistoryRowView,
  RepricedLessons,
  StudentView,
  TutorAnswer,
} from '@agency/contracts';
import { withAsOf } from '../../lib/as-of';
import { getJson, postJson } from '../../lib/http';

/** A history row of spec §3: rates as fractions, `endDate` null while the period goes on. */
export type HistoryRow = HistoryRowView;

export type Engagement = EngagementView;

export type Student = StudentView;

export type EngagementChange = 'start' | 'rates' | 'subjects' | 'correction' | 'termination';

/** The body of `POST /api/tutors/engagement`: pounds and percentages as typed. */
export type EngagementCommand = {
  commandId: string;
  id?: string;
  tutorId: string;
  studentId?: string;
  rate: string | number;
  commissionPct: string | number;
  partnerPct: string | number;
  startDate: string;
  endDate?: string;
  subjects: string[];
  change: EngagementChange;
  periodStart?: string;
};

export const fetchEngagement = (ids: { tutorId: string; engagementId: string; asOf?: string }, signal?: AbortSignal) =>
  getJson<EngagementAnswer>(
    `/api/tutors/engagement/${encodeURIComponent(ids.tutorId)}/${encodeURIComponent(ids.engagementId)}?${withAsOf(new URLSearchParams(), ids.asOf)}`,
    signal,
  ).then((answer) => answer.engagement);

export const fetchStudents = (signal?: AbortSignal) =>
  getJson<ClientChildrenAnswer>('/api/clients/all/children', signal).then((answer) => answer.children);

export const fetchTutorName = (tutorId: string, signal?: AbortSignal) =>
  getJson<TutorAnswer>(`/api/tutors/${encodeURIComponent(tutorId)}`, signal).then((answer) => answer.tutor);

/** `repriced`: after a change of rates (or a corrected period), the lessons it repriced. */
export const saveEngagement = (body: EngagementCommand) =>
  postJson<{ engagement: Engagement; repriced?: RepricedLessons }>('/api/tutors/engagement', body);
