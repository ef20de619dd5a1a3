import dayjs from 'dayjs';

/**
 * The days of today's month an early invoice locks besides today's: '2026-11-26' →
 * '27–30 November 2026'; on the month's last day, 'the rest of 30 November 2026'.
 */
export function daysLeftInWords(today: string): string {
  const day = dayjs(today);
  const last = day.endOf('month');
  if (day.date() === last.date()) return `the rest of ${day.format('D MMMM YYYY')}`;
  return `${day.date() + 1}–${last.format('D MMMM YYYY')}`;
}
