import { z } from 'zod';
import { LIMITS } from '../limits';
import { calendarDate, commandId, entityId } from '../values';
import { numberFromForm, poundsFromForm } from './engagement-commands';

/**
 * `POST /api/lessons/lesson`: record or change one lesson. Duration is decimal hours
 * (default 1; 0 removes the lesson); `amount` (pounds) only when it was edited directly,
 * otherwise the domain prices the lesson as duration × the rate in force on its date.
 */
export const lessonBody = z.object({
  commandId,
  tutorId: entityId('Tutor is required'),
  lesson: z.object(
    {
      id: entityId().optional(),
      engagementId: entityId('Student is required'),
      date: z.string({ error: 'Date is required' }).min(1, 'Date is required').pipe(calendarDate),
      duration: z.preprocess(
        (value) => value ?? 1,
        numberFromForm('Duration is required', 'Duration').pipe(
          z
            .number()
            .min(0, 'Duration cannot be negative')
            .max(
              LIMITS.maxDurationHundredths / 100,
              `Duration cannot be more than ${LIMITS.maxDurationHundredths / 100} hours`,
            ),
        ),
      ),
      amount: z.preprocess(
        (value) => (value === '' || value === null ? undefined : value),
        poundsFromForm('Amount is required', 'Amount', { max: LIMITS.maxMoneyPence / 100 }).optional(),
      ),
    },
    { error: 'Lesson is required' },
  ),
});
export type LessonBody = z.infer<typeof lessonBody>;
