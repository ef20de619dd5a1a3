import { z } from 'zod';

/**
 * The lesson entry grid (spec §3 "Lesson grid"), as GET /api/lessons/timesheet answers it and
 * the lesson save answers it back: one row per engagement alive in the range, one cell per date.
 * Amounts and rates in pounds, durations in hours.
 */
export const gridCell = z.object({
  date: z.string(),
  /** Present when a lesson is recorded on this date. */
  id: z.string().optional(),
  duration: z.number(),
  amount: z.number(),
  amountEdited: z.boolean(),
  locked: z.boolean(),
  /** Whether the engagement runs on this date (a lesson may be recorded here). */
  open: z.boolean(),
  /** The rate in force on this date, for a new lesson's default amount; null outside the engagement. */
  rate: z.number().nullable(),
});
export type GridCell = z.infer<typeof gridCell>;

export const gridRow = z.object({
  engagementId: z.string(),
  studentId: z.string(),
  studentName: z.string(),
  /** The rate in force on the last date of the range the engagement covers. */
  rate: z.number(),
  startDate: z.string(),
  endDate: z.string().nullable(),
  lessons: z.array(gridCell),
});
export type GridRow = z.infer<typeof gridRow>;

export const timesheetGridAnswer = z.object({
  month: z.string(),
  dates: z.array(z.string()),
  students: z.array(gridRow),
  locked: z.boolean(),
});
export type TimesheetGrid = z.infer<typeof timesheetGridAnswer>;
