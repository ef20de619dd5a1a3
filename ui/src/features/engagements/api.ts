import { getJson, postJson } from '../../lib/http';

/** A history row of spec §3: rates as fractions, `endDate` null while the period goes on. */
export type HistoryRow = {
  rate: number;
  commissionRate: number;
  /** Absent from a tutor's answer (contracts/visibility.ts). */
  partnerRate?: number;
  subjects: string[];
  startDate: string;
  endDate: string | null;
  latest: boolean;
};

export type Engagement = {
  id: string;
  tutor: { id: string; name: string };
  studentId: string;
  studentName: string;
  firstName: string;
  lastName: string;
  rate: number;
  commissionRate: number;
  /** Absent from a tutor's answer, as is `partnerPct` (contracts/visibility.ts). */
  partnerRate?: number;
  commissionPct: number;
  partnerPct?: number;
  startDate: string;
  /** Absent while the engagement is ongoing. */
  endDate?: string;
  subjects: string[];
  history: HistoryRow[];
};

export type Student = { id: string; clientId: string; firstName: string; lastName: string; name: string; dob: string };

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

export const fetchEngagement = (ids: { tutorId: string; engagementId: string }, signal?: AbortSignal) =>
  getJson<{ engagement: Engagement }>(
    `/api/tutors/engagement/${encodeURIComponent(ids.tutorId)}/${encodeURIComponent(ids.engagementId)}`,
    signal,
  ).then((answer) => answer.engagement);

export const fetchStudents = (signal?: AbortSignal) =>
  getJson<{ children: Student[] }>('/api/clients/all/children', signal).then((answer) => answer.children);

export const fetchTutorName = (tutorId: string, signal?: AbortSignal) =>
  getJson<{ tutor: { id: string; name: string } }>(`/api/tutors/${encodeURIComponent(tutorId)}`, signal).then(
    (answer) => answer.tutor,
  );

export const saveEngagement = (body: EngagementCommand) =>
  postJson<{ engagement: Engagement }>('/api/tutors/engagement', body);
