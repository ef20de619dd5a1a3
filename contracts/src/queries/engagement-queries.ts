import { z } from 'zod';
import { calendarDate } from '../values';
import { asOfQuery, queryId } from './query-values';

export const engagementParams = z.object({ tutorId: queryId, engagementId: queryId });
/** `?asOf=`: the engagement as it was known at a past moment. */
export const engagementQuery = asOfQuery;
export const engagementOnParams = engagementParams.extend({ date: calendarDate });

/** A row of spec §3's history list: rates as fractions, `endDate` null while the period goes on. */
export const historyRowView = z.object({
  rate: z.number(),
  commissionRate: z.number(),
  /** Absent from a tutor's answer (visibility.ts). */
  partnerRate: z.number().optional(),
  subjects: z.array(z.string()),
  startDate: z.string(),
  endDate: z.string().nullable(),
  latest: z.boolean(),
});
export type HistoryRowView = z.infer<typeof historyRowView>;

export const engagementView = z.object({
  id: z.string(),
  tutor: z.object({ id: z.string(), name: z.string() }),
  tutorId: z.string(),
  studentId: z.string(),
  name: z.string(),
  studentName: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  rate: z.number(),
  commissionRate: z.number(),
  /** Absent from a tutor's answer, as is `partnerPct` (visibility.ts). */
  partnerRate: z.number().optional(),
  commissionPct: z.number(),
  partnerPct: z.number().optional(),
  startDate: z.string(),
  /** Absent while the engagement is ongoing (spec §4). */
  endDate: z.string().optional(),
  subjects: z.array(z.string()),
  history: z.array(historyRowView),
});
export type EngagementView = z.infer<typeof engagementView>;
export const engagementAnswer = z.object({ engagement: engagementView });
export type EngagementAnswer = z.infer<typeof engagementAnswer>;

/** The period in force on a date: what lessons and invoices of that date are priced by. */
export const engagementOnAnswer = z.object({
  engagementId: z.string(),
  date: z.string(),
  period: z.object({
    rate: z.number(),
    commissionRate: z.number(),
    partnerRate: z.number().optional(),
    subjects: z.array(z.string()),
    startDate: z.string(),
    endDate: z.string().nullable(),
  }),
});
export type EngagementOnAnswer = z.infer<typeof engagementOnAnswer>;
