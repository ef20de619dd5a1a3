import { z } from 'zod';
import { calendarDate } from '../values';
import { contactDetails } from './client-events';
import { defineEvent, type EventOf } from './define';

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
/** Never the activation code: that stays (hashed) in the command service's table. */
export const TutorActivationEmailSent = defineEvent(
  'TutorActivationEmailSent',
  1,
  z.object({ tutorId: z.string(), sentTo: z.string(), expiresAt: z.iso.datetime() }),
);
export const TutorAccountActivated = defineEvent(
  'TutorAccountActivated',
  1,
  z.object({ tutorId: z.string(), userId: z.string(), username: z.string() }),
);

export const tutorEvents = [
  TutorRegistered,
  TutorDetailsChanged,
  TutorTerminated,
  TutorReactivated,
  TutorActivationEmailSent,
  TutorAccountActivated,
] as const;

export type TutorEvent = EventOf<(typeof tutorEvents)[number]>;
