import { z } from 'zod';
import { calendarDate } from '../values';
import { defineEvent, type EventOf } from './define';

/**
 * What an assessment covered: the subjects (from the spec's list) and the tutor who assessed.
 * No names and no free text: a consultation refers to its family and child by id only, so the
 * family's personal data stays in the client's stream (and its encryption).
 */
export const assessmentDetails = z.object({
  subjects: z.array(z.string()),
  tutorId: z.string().nullable(),
});
export type AssessmentDetails = z.infer<typeof assessmentDetails>;

/** A consultation as recorded or changed; `invoiceId` is the family invoice that bills it now. */
const consultationDetails = z.object({
  consultationId: z.string(),
  clientId: z.string(),
  childId: z.string(),
  date: calendarDate,
  amountPence: z.number().int().min(0),
  /** null: no assessment. */
  assessment: assessmentDetails.nullable(),
  invoiceId: z.string(),
});
export type ConsultationDetails = z.infer<typeof consultationDetails>;

export const ConsultationRecorded = defineEvent('ConsultationRecorded', 1, consultationDetails);
export const ConsultationChanged = defineEvent('ConsultationChanged', 1, consultationDetails);
export const ConsultationCancelled = defineEvent('ConsultationCancelled', 1, z.object({ consultationId: z.string() }));

export const consultationEvents = [ConsultationRecorded, ConsultationChanged, ConsultationCancelled] as const;
export type ConsultationEvent = EventOf<(typeof consultationEvents)[number]>;
