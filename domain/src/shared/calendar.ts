/** One date format per time zone: making one costs far more than using it (the UI asks on every render). */
const dayFormats = new Map<string, Intl.DateTimeFormat>();

/** Today's calendar date (YYYY-MM-DD) in the agency's time zone. */
export function todayIn(timeZone: string, now: Date): string {
  let format = dayFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    dayFormats.set(timeZone, format);
  }
  return format.format(now);
}

/** The date and time now (`YYYY-MM-DDTHH:mm`) in the agency's time zone. */
export function nowLocalIn(timeZone: string, now: Date): string {
  const time = new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
  return `${todayIn(timeZone, now)}T${time.format(now)}`;
}

const SHORT_MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** The spec's dd MMM yyyy: 2026-03-05 → '05 Mar 2026'. */
export const displayDate = (date: string) =>
  `${date.slice(8, 10)} ${SHORT_MONTHS[Number(date.slice(5, 7)) - 1]} ${date.slice(0, 4)}`;

/** A calendar date `days` later: ('2026-03-25', 14) → '2026-04-08'. */
export function addDays(date: string, days: number): string {
  const day = new Date(`${date}T00:00:00Z`);
  day.setUTCDate(day.getUTCDate() + days);
  return day.toISOString().slice(0, 10);
}
