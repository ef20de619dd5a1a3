import { z } from 'zod';

const isRealDate = (value: string) => {
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
};

/** A calendar date, `YYYY-MM-DD`, that exists. */
export const calendarDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'Use a date like 2026-01-31')
  .refine(isRealDate, 'Not a real date');

export const requiredText = (message: string) =>
  z.string({ error: message }).trim().min(1, message).max(200, 'Too long (200 characters at most)');

export const optionalText = z.string().trim().max(200, 'Too long (200 characters at most)');

export const commandId = z.uuid('commandId must be a UUID').optional();
