import { z } from 'zod';
import { calendarDate } from '../values';
import { contactDetails } from './client-events';
import { defineEvent, type EventOf } from './define';
import { engagementTerms } from './engagement-events';

export const TutorRegistered = defineEvent(
  'TutorRegistered',
  1,
  z.object({
    tutorId: z.string(),
    startDate: calendarDate,
    username: z.string(),
    invoicePrefix: z.string(),
    contact: contactDetails,
  }),
);
export const TutorDetailsChanged = defineEvent(
  'TutorDetailsChanged',
  1,
  z.object({ tutorId: z.string(), contact: contactDetails }),
);
export const TutorTerminated = defineEvent(
  'TutorTerminated',
  1,
  z.object({ tutorId: z.string(), endDate: calendarDate }),
);
export const TutorReactivated = defineEvent(
  'TutorReactivated',
  1,
  z.object({ tutorId: z.string(), startDate: calendarDate }),
);
/**
 * An activation e-mail was asked for: the mail reactor sends it. Never the activation code: its
 * hash stays in the command service's table, and the code itself only until it is mailed, kept
 * apart under `linkId` (version 2; null on version 1, whose mail was sent before it was recorded).
 */
export const TutorActivationEmailSent = defineEvent(
  'TutorActivationEmailSent',
  2,
  z.object({ tutorId: z.string(), sentTo: z.string(), expiresAt: z.iso.datetime(), linkId: z.string().nullable() }),
);
export const TutorAccountActivated = defineEvent(
  'TutorAccountActivated',
  1,
  z.object({ tutorId: z.string(), userId: z.string(), username: z.string() }),
);

/** What an engagement starts with: its terms, its first day and its subjects. */
export const engagementStart = engagementTerms.extend({ startDate: calendarDate, subjects: z.array(z.string()) });
export type EngagementStart = z.infer<typeof engagementStart>;

/**
 * The tutor's roster of ongoing engagements, kept in the tutor's own stream so that the rules
 * spanning a tutor and their engagements (one ongoing engagement per student, no new student for
 * a terminated tutor, no termination while a student is current) are decided on one stream at
 * one expected revision. Recorded before the engagement's own `EngagementStarted`.
 *
 * Version 2 may carry `engagement`, what the engagement starts with: a start is then one command
 * on this stream, and a reactor records the engagement in its own stream from this event alone.
 * It is the same fact as before (the engagement is on the roster), so a new version of this event
 * rather than a new type that every reader of the roster would have to learn as well. Without it
 * (every version 1 event, and an engagement put on the roster after it was recorded) the
 * engagement's own stream was written by whoever put it on the roster.
 */
export const TutorEngagementStarted = defineEvent(
  'TutorEngagementStarted',
  2,
  z.object({
    tutorId: z.string(),
    engagementId: z.string(),
    studentId: z.string(),
    engagement: engagementStart.optional(),
  }),
);
/** The engagement ended (or, `abandoned`, it was never recorded): its student is no longer current. */
export const TutorEngagementEnded = defineEvent(
  'TutorEngagementEnded',
  1,
  z.object({ tutorId: z.string(), engagementId: z.string(), abandoned: z.boolean().optional() }),
);
/** A tutor who has left had their personal data erased (key destroyed); `reason` says why. */
export const TutorErased = defineEvent(
  'TutorErased',
  1,
  z.object({ tutorId: z.string(), reason: z.string(), erasedAt: z.iso.datetime() }),
);

export const tutorEvents = [
  TutorRegistered,
  TutorDetailsChanged,
  TutorTerminated,
  TutorReactivated,
  TutorActivationEmailSent,
  TutorAccountActivated,
  TutorEngagementStarted,
  TutorEngagementEnded,
  TutorErased,
] as const;

export type TutorEvent = EventOf<(typeof tutorEvents)[number]>;
