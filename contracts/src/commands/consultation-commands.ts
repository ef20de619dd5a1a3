import { z } from 'zod';
import { LIMITS } from '../limits';
import { calendarDate, commandId, entityId } from '../values';
import { poundsFromForm, subject, subjectOptions } from './engagement-commands';

const requiredDate = z.string({ error: 'Date is required' }).min(1, 'Date is required').pipe(calendarDate);

/** Amount in pounds, up to £100,000; blank or missing means the agency's default (175). */
const optionalAmount = z.preprocess(
  (value) => (value === '' || value === null ? undefined : value),
  poundsFromForm('Amount is required', 'Amount', { max: LIMITS.maxMoneyPence / 100 }).optional(),
);

/** What the Assessment? block holds: subjects from the spec's list and the tutor who assessed. */
export const assessmentBody = z.object({
  subjects: z
    .array(subject)
    .max(subjectOptions.length, `Choose at most ${subjectOptions.length} subjects`)
    .default([])
    .transform((chosen) => [...new Set(chosen)]),
  tutorId: z.preprocess(
    (value) => (value === '' ? null : value),
    entityId('Tutor is required').nullable().default(null),
  ),
});

/**
 * `POST /api/consultations`: record (no `id`) or change one. `client` and `child` are ids; the
 * child must be one of the client's. `assessmentDetails` counts only when `assessment` is true.
 */
export const consultationBody = z.object({
  commandId,
  id: entityId().optional(),
  client: entityId('Client is required'),
  child: entityId('Child is required'),
  date: requiredDate,
  amount: optionalAmount,
  assessment: z.boolean({ error: 'Assessment must be true or false' }).default(false),
  assessmentDetails: assessmentBody.optional(),
});

/** `POST /api/consultations/cancel`: the consultation's invoice, if issued, is credited. */
export const consultationCancelBody = z.object({ commandId, id: entityId('Consultation is required') });

/** `POST /api/family-invoices/payment`: money a family paid against one invoice (part payments too). */
export const familyPaymentBody = z.object({
  commandId,
  invoiceId: entityId('Invoice is required'),
  date: requiredDate,
  amount: poundsFromForm('Amount is required', 'Amount', { max: LIMITS.maxMoneyPence / 100, positive: true }),
});
