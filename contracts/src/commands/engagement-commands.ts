import { z } from 'zod';
import { isDecimalText, LIMITS } from '../limits';
import { calendarDate, commandId, entityId } from '../values';

/** The spec's subject options, in its order. */
export const subjectOptions = [
  'All',
  'Biology',
  'BMAT',
  'Chemistry',
  'ELAT',
  'English',
  'ESL',
  'French',
  'Geography',
  'German',
  'Greek',
  'History',
  'Latin',
  'Mandarin',
  'Maths',
  'Philosophy',
  'Physics',
  'Politics',
  'Psychology',
  'Religious Studies',
  'Science',
  'SEN',
  'Spanish',
  'UKCAT',
  '7+',
  '8+',
  '11+',
  '13+',
] as const;
export const subject = z.enum(subjectOptions, { error: 'Choose subjects from the list' });
export type Subject = z.infer<typeof subject>;

/**
 * A number typed into a form: a JSON number or a string such as '12.50' or '£1,234.50'.
 * Blank or missing is `required`; anything else that is not a number says so with `label`.
 * Text longer than 32 characters is refused before it is looked at, and the decimal check runs
 * in linear time, so no input can hold the event loop.
 */
export const numberFromForm = (required: string, label: string) =>
  z.union([z.number(), z.string()], { error: required }).transform((value, ctx) => {
    if (typeof value === 'string' && value.length > LIMITS.maxNumericLength) {
      ctx.addIssue({ code: 'custom', message: `${label} is too long (${LIMITS.maxNumericLength} characters at most)` });
      return z.NEVER;
    }
    const text = typeof value === 'number' ? String(value) : value.trim().replace(/^£/, '').replace(/,/g, '');
    if (text === '') {
      ctx.addIssue({ code: 'custom', message: required });
      return z.NEVER;
    }
    const number = typeof value === 'number' ? value : isDecimalText(text) ? Number(text) : Number.NaN;
    if (!Number.isFinite(number)) {
      ctx.addIssue({ code: 'custom', message: `${label} must be a number` });
      return z.NEVER;
    }
    return number;
  });

/** Pounds typed into a form, from 0 (or above 0) up to `max` pounds. */
export const poundsFromForm = (
  required: string,
  label: string,
  { max, positive = false }: { max: number; positive?: boolean },
) =>
  numberFromForm(required, label).pipe(
    z
      .number()
      .refine(
        (n) => (positive ? n > 0 : n >= 0),
        positive ? `${label} must be more than 0` : `${label} cannot be negative`,
      )
      .refine((n) => n <= max, `${label} cannot be more than £${max.toLocaleString('en-GB')}`),
  );

/** A percentage field where missing (absent or null) means 0, as the spec says. */
const percentage = (required: string, label: string) =>
  z.preprocess(
    (value) => value ?? 0,
    numberFromForm(required, label).pipe(
      z.number().min(0, `${label} must be between 0 and 100`).max(100, `${label} must be between 0 and 100`),
    ),
  );

const optionalDate = z
  .union([calendarDate, z.literal(''), z.null()])
  .optional()
  .transform((value) => value || undefined);

/**
 * `POST /api/tutors/engagement`: add, change rates or subjects, correct a period, terminate.
 * Amounts are pounds, percentages 0–100 (the domain turns them into pence and basis points).
 * A change carries the engagement `id` and the date it takes effect as `startDate`.
 * `change` says which change it is; without it the service infers it (no `id`: a new
 * engagement; `endDate`: termination; otherwise rates and subjects compared with the period
 * in force). `periodStart` names the history period a correction edits.
 */
export const engagementBody = z
  .object({
    commandId,
    id: entityId().optional(),
    tutorId: entityId('Tutor is required'),
    studentId: entityId().optional(),
    rate: poundsFromForm('Rate is required', 'Rate', { max: LIMITS.maxRatePence / 100 }),
    commissionPct: percentage('Commission % is required', 'Commission %'),
    partnerPct: percentage('Partner % is required', 'Partner %'),
    startDate: z.string({ error: 'Start date is required' }).min(1, 'Start date is required').pipe(calendarDate),
    endDate: optionalDate,
    subjects: z
      .array(subject)
      .max(subjectOptions.length, `Choose at most ${subjectOptions.length} subjects`)
      .default([])
      .transform((chosen) => [...new Set(chosen)]),
    change: z.enum(['start', 'rates', 'subjects', 'correction', 'termination']).optional(),
    periodStart: optionalDate,
  })
  .superRefine((body, ctx) => {
    if (!body.id && !body.studentId)
      ctx.addIssue({ code: 'custom', path: ['studentId'], message: 'Student is required' });
  });
export type EngagementBody = z.infer<typeof engagementBody>;

/**
 * In the answer of a change of terms (`POST /api/tutors/engagement`): the lessons it repriced,
 * from `from` on, in the months not yet invoiced. `complete` false: the repricing was still under
 * way when the answer was made (`lessons` holds what was done by then).
 */
export const repricedLessons = z.object({
  from: calendarDate,
  complete: z.boolean(),
  lessons: z.array(
    z.object({
      id: z.string(),
      date: calendarDate,
      /** Hours. */
      duration: z.number(),
      /** Pounds, before and after. */
      previousAmount: z.number(),
      amount: z.number(),
    }),
  ),
});
export type RepricedLessons = z.infer<typeof repricedLessons>;
