import { z } from 'zod';
import { calendarDate, commandId } from '../values';

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

const NUMERIC = /^[+-]?(\d+\.?\d*|\.\d+)$/;

/**
 * A number typed into a form: a JSON number or a string such as '12.50' or '£1,234.50'.
 * Blank or missing is `required`; anything else that is not a number says so with `label`.
 */
export const numberFromForm = (required: string, label: string) =>
  z.union([z.number(), z.string()], { error: required }).transform((value, ctx) => {
    const text = typeof value === 'number' ? String(value) : value.trim().replace(/^£/, '').replace(/,/g, '');
    if (text === '') {
      ctx.addIssue({ code: 'custom', message: required });
      return z.NEVER;
    }
    const number = typeof value === 'number' ? value : NUMERIC.test(text) ? Number(text) : Number.NaN;
    if (!Number.isFinite(number)) {
      ctx.addIssue({ code: 'custom', message: `${label} must be a number` });
      return z.NEVER;
    }
    return number;
  });

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
    id: z.string().min(1).optional(),
    tutorId: z.string({ error: 'Tutor is required' }).min(1, 'Tutor is required'),
    studentId: z.string().min(1).optional(),
    rate: numberFromForm('Rate is required', 'Rate').pipe(z.number().min(0, 'Rate cannot be negative')),
    commissionPct: percentage('Commission % is required', 'Commission %'),
    partnerPct: percentage('Partner % is required', 'Partner %'),
    startDate: z.string({ error: 'Start date is required' }).min(1, 'Start date is required').pipe(calendarDate),
    endDate: optionalDate,
    subjects: z
      .array(subject)
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
