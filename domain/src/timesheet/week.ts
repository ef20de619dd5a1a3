/**
 * The timesheet's calendar: a timesheet is one month, shown and entered one Monday-to-Sunday
 * week at a time, and a week never crosses the month.
 */

const DAY_MS = 86_400_000;
const toDate = (date: string) => new Date(`${date}T00:00:00Z`);
const fromDate = (date: Date) => date.toISOString().slice(0, 10);

export const addDays = (date: string, days: number) => fromDate(new Date(toDate(date).getTime() + days * DAY_MS));

/** The first and last date of a `YYYY-MM` month. */
export function monthBounds(month: string): { first: string; last: string } {
  const [year, monthNumber] = month.split('-').map(Number);
  const last = new Date(Date.UTC(year, monthNumber, 0));
  return { first: `${month}-01`, last: fromDate(last) };
}

/** The Monday on or before `date` (weeks start on Monday). */
export function mondayOf(date: string): string {
  const weekday = (toDate(date).getUTCDay() + 6) % 7;
  return addDays(date, -weekday);
}

/** The Monday-to-Sunday week holding `date`, limited to `month`: the grid never crosses a month. */
export function weekInMonth(date: string, month: string): { from: string; to: string } {
  const { first, last } = monthBounds(month);
  const monday = mondayOf(date);
  const sunday = addDays(monday, 6);
  return { from: monday < first ? first : monday, to: sunday > last ? last : sunday };
}

/** Every date from `from` to `to` that falls in `month`, in order. */
export function datesInMonth(from: string, to: string, month: string): string[] {
  const { first, last } = monthBounds(month);
  const start = from < first ? first : from;
  const end = to > last ? last : to;
  const dates: string[] = [];
  for (let date = start; date <= end && dates.length < 31; date = addDays(date, 1)) dates.push(date);
  return dates;
}
