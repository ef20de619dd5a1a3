import { z } from 'zod';
import { calendarDate, commandId } from '../values';
import { numberFromForm } from './engagement-commands';

/**
 * `POST /api/lessons/lesson`: record or change one lesson. Duration is decimal hours
 * (default 1; 0 removes the lesson); `amount` (pounds) only when it was edited directly,
 * otherwise the domain prices the lesson as duration × the rate in force on its date.
 */
export const lessonBody = z.object({
  commandId,
  tutorId: z.string({ error: 'Tutor is required' }).min(1, 'Tutor is required'),
  lesson: z.object(
    {
      id: z.string().min(1).optional(),
      engagementId: z.string({ error: 'Student is required' }).min(1, 'Student is required'),
      date: z.string({ error: 'Date is required' }).min(1, 'Date is required').pipe(calendarDate),
      duration: z.preprocess(
        (value) => value ?? 1,
        numberFromForm('Duration is required', 'Duration').pipe(z.number().min(0, 'Duration cannot be negative')),
      ),
      amount: z.preprocess(
        (value) => (value === '' || value === null ? undefined : value),
        numberFromForm('Amount is required', 'Amount').pipe(z.number().min(0, 'Amount cannot be negative')).optional(),
      ),
    },
    { error: 'Lesson is required' },
  ),
});
export type LessonBody = z.infer<typeof lessonBody>;
