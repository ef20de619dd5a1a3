import { z } from 'zod';
import { LIMITS } from '../limits';
import { calendarDate, commandId, entityId } from '../values';
import { poundsFromForm } from './engagement-commands';

const MAX_HOURS = LIMITS.maxDurationHundredths / 100;
const MAX_MINUTES = MAX_HOURS * 60;

/** What the grid says about durations: the forms `readDuration` understands. */
export const DURATION_FORMS = `Durations: hours as 1.5 or 1:30, minutes as 90m; a number alone is hours (${MAX_HOURS} at most).`;

const NOT_UNDERSTOOD = 'Duration must be hours (1.5 or 1:30) or minutes (90m)';
const TOO_LONG = `Duration cannot be more than ${MAX_HOURS} hours`;

/** A duration as hundredths of an hour, or why it was refused (a sentence for the person who typed it). */
export type DurationReading = { hundredths: number } | { refused: string };

// Each pattern is one run of digits, an optional fraction, an optional unit: no two parts can
// match the same characters, so none backtracks (the text is at most 32 characters anyway).
const HOUR_UNIT = '(?:h|hr|hrs|hour|hours)';
const MINUTE_UNIT = '(?:m|min|mins|minute|minutes)';
const HOURS = new RegExp(`^(\\d*)(?:\\.(\\d*))?(\\s*${HOUR_UNIT})?$`);
const CLOCK = /^(\d+):(\d{2})$/;
const MINUTES = new RegExp(`^(\\d+)\\s*${MINUTE_UNIT}$`);
const HOURS_AND_MINUTES = new RegExp(`^(\\d+)\\s*${HOUR_UNIT}\\s*(\\d+)\\s*(?:${MINUTE_UNIT})?$`);

/** Whole minutes to hundredths of an hour, half-up (20 minutes are 0.33 h, 40 minutes 0.67 h). */
const minutesToHundredths = (minutes: number) => Math.floor((minutes * 100 + 30) / 60);

/** Decimal hours (its whole and fraction digits) to hundredths, half-up as every duration is. */
function hoursToHundredths(whole: string, fraction: string): number {
  const digits = whole.replace(/^0+/, '');
  if (digits.length > 4) return Number.POSITIVE_INFINITY;
  const kept = Number(fraction.slice(0, 2).padEnd(2, '0'));
  return Number(digits || '0') * 100 + kept + (fraction.charAt(2) >= '5' ? 1 : 0);
}

const withinDay = (hundredths: number, tooLong: string): DurationReading =>
  hundredths > LIMITS.maxDurationHundredths ? { refused: tooLong } : { hundredths };

function readTypedDuration(typed: string): DurationReading {
  const text = typed.trim().toLowerCase();
  if (text === '') return { refused: 'Duration is required' };
  if (text.startsWith('-')) return { refused: 'Duration cannot be negative' };
  const hours = HOURS.exec(text);
  if (hours && (hours[1] || hours[2])) {
    const [, whole = '', fraction = '', unit] = hours;
    const hundredths = hoursToHundredths(whole, fraction);
    // A number alone is hours (the grid is in hours); one that reads as minutes gets the way to say so.
    const asMinutes = !unit && !fraction && Number(whole) <= MAX_MINUTES;
    return withinDay(
      hundredths,
      asMinutes ? `${TOO_LONG}: for ${Number(whole)} minutes, write ${Number(whole)}m` : TOO_LONG,
    );
  }
  const clock = CLOCK.exec(text) ?? HOURS_AND_MINUTES.exec(text);
  if (clock) {
    const [, whole = '', minutes = ''] = clock;
    if (Number(minutes) > 59) return { refused: 'The minutes after the hours must be 0 to 59' };
    if (whole.replace(/^0+/, '').length > 4) return { refused: TOO_LONG };
    return withinDay(minutesToHundredths(Number(whole) * 60 + Number(minutes)), TOO_LONG);
  }
  const minutes = MINUTES.exec(text);
  if (minutes) {
    const [, digits = ''] = minutes;
    if (digits.replace(/^0+/, '').length > 6) return { refused: TOO_LONG };
    return withinDay(minutesToHundredths(Number(digits)), `${TOO_LONG} (${MAX_MINUTES} minutes)`);
  }
  return { refused: NOT_UNDERSTOOD };
}

/**
 * The one reading of a lesson's duration, for the grid as it is typed and for the server's
 * contract: decimal hours (`1.5`, `.5`, `1.5h`), hours and minutes (`1:30`, `1h30`, `1h 30m`) or
 * minutes (`90m`, `90 min`). A number alone is hours, as the grid is; 0 removes a lesson; at most
 * 24 hours. Hours are kept in hundredths, half-up (`1:20` is 1.33 h), as every duration is.
 * A JSON number from an API client is decimal hours.
 */
export function readDuration(value: string | number): DurationReading {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return { refused: 'Duration must be a number' };
    if (value < 0) return { refused: 'Duration cannot be negative' };
    const text = /e/i.test(String(value)) ? value.toFixed(20) : String(value);
    const [whole = '', fraction = ''] = text.split('.');
    return withinDay(hoursToHundredths(whole, fraction), TOO_LONG);
  }
  if (value.length > LIMITS.maxNumericLength) {
    return { refused: `Duration is too long (${LIMITS.maxNumericLength} characters at most)` };
  }
  return readTypedDuration(value);
}

/** A lesson's duration as the API takes it (text in any form `readDuration` reads, or a number of hours), in hours. */
export const lessonDuration = z
  .union([z.number(), z.string()], { error: 'Duration is required' })
  .transform((value, ctx) => {
    const reading = readDuration(value);
    if ('refused' in reading) {
      ctx.addIssue({ code: 'custom', message: reading.refused });
      return z.NEVER;
    }
    return reading.hundredths / 100;
  });

/**
 * `POST /api/lessons/lesson`: record or change one lesson. Duration is hours (default 1; 0
 * removes the lesson), typed in any form `readDuration` reads; `amount` (pounds) only when it was
 * edited directly, otherwise the domain prices the lesson as duration × the rate in force on its date.
 */
export const lessonBody = z.object({
  commandId,
  tutorId: entityId('Tutor is required'),
  lesson: z.object(
    {
      id: entityId().optional(),
      engagementId: entityId('Student is required'),
      date: z.string({ error: 'Date is required' }).min(1, 'Date is required').pipe(calendarDate),
      duration: z.preprocess((value) => value ?? 1, lessonDuration),
      amount: z.preprocess(
        (value) => (value === '' || value === null ? undefined : value),
        poundsFromForm('Amount is required', 'Amount', { max: LIMITS.maxMoneyPence / 100 }).optional(),
      ),
    },
    { error: 'Lesson is required' },
  ),
});
