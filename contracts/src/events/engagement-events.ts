import { z } from 'zod';
import { calendarDate } from '../values';
import { defineEvent, type EventOf } from './define';

const pence = z.number().int();
const basisPoints = z.number().int().min(0).max(10_000);

/** What a tutor earns per hour and how it is shared: pence and basis points (2500 bp = 25 %). */
export const engagementTerms = z.object({
  ratePence: pence.min(0),
  commissionBp: basisPoints,
  partnerBp: basisPoints,
});
export type EngagementTerms = z.infer<typeof engagementTerms>;

export const EngagementStarted = defineEvent(
  'EngagementStarted',
  1,
  engagementTerms.extend({
    engagementId: z.string(),
    tutorId: z.string(),
    studentId: z.string(),
    startDate: calendarDate,
    subjects: z.array(z.string()),
  }),
);
/** New terms from `from` onwards: the period in force closes the day before. */
export const EngagementRatesChanged = defineEvent(
  'EngagementRatesChanged',
  1,
  engagementTerms.extend({ engagementId: z.string(), from: calendarDate }),
);
export const EngagementSubjectsChanged = defineEvent(
  'EngagementSubjectsChanged',
  1,
  z.object({ engagementId: z.string(), from: calendarDate, subjects: z.array(z.string()) }),
);
/**
 * The values of the period that started on `periodStart` were wrong: it now starts on
 * `startDate` (moving the boundary with the period before it) and carries these values.
 */
export const EngagementPeriodCorrected = defineEvent(
  'EngagementPeriodCorrected',
  1,
  engagementTerms.extend({
    engagementId: z.string(),
    periodStart: calendarDate,
    startDate: calendarDate,
    subjects: z.array(z.string()),
  }),
);
export const EngagementEnded = defineEvent(
  'EngagementEnded',
  1,
  z.object({ engagementId: z.string(), endDate: calendarDate }),
);

export const engagementEvents = [
  EngagementStarted,
  EngagementRatesChanged,
  EngagementSubjectsChanged,
  EngagementPeriodCorrected,
  EngagementEnded,
] as const;

export type EngagementEvent = EventOf<(typeof engagementEvents)[number]>;
