import { z } from 'zod';
import { defineEvent, type EventOf } from './define';

/**
 * A tutor's bank account for pay runs (stream `bank-details-{tutorId}`, docs/money-models.md, "Pay
 * runs"), recorded by an admin; the latest one recorded is the one paid into. Every field is the
 * tutor's personal data, sealed under their key (docs/personal-data.md), so an erasure leaves them
 * unreadable. `sortCode` is six digits and `accountNumber` eight, without spaces or hyphens;
 * `rollNumber` is a building society's roll number, for an account that needs one.
 */
export const TutorBankDetailsSet = defineEvent(
  'TutorBankDetailsSet',
  1,
  z.object({
    tutorId: z.string(),
    accountName: z.string(),
    sortCode: z.string(),
    accountNumber: z.string(),
    rollNumber: z.string().nullable(),
  }),
);

export const tutorBankEvents = [TutorBankDetailsSet] as const;
export type TutorBankEvent = EventOf<(typeof tutorBankEvents)[number]>;
