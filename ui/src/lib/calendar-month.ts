import dayjs from 'dayjs';

/** A calendar month as the spec's screens select it: year and month 1–12. */
export type CalendarMonth = { year: number; month: number };

/** The year options: the current year down to 2011 (spec §9). */
export function yearOptions(today = dayjs()): number[] {
  const years: number[] = [];
  for (let year = today.year(); year >= 2011; year--) years.push(year);
  return years;
}

export const MONTH_OPTIONS = Array.from({ length: 12 }, (_, index) => ({
  value: String(index + 1),
  label: dayjs().month(index).format('MMMM'),
}));

/** The month as the API names it: 'YYYY-MM'. */
export const monthKey = ({ year, month }: CalendarMonth) => `${year}-${String(month).padStart(2, '0')}`;

/** 'March 2026'. */
export const monthTitle = (value: CalendarMonth) => dayjs(`${monthKey(value)}-01`).format('MMMM YYYY');

/** The month `step` months away. */
export function shiftMonth(value: CalendarMonth, step: number): CalendarMonth {
  const shifted = dayjs(`${monthKey(value)}-01`).add(step, 'month');
  return { year: shifted.year(), month: shifted.month() + 1 };
}

/** The month named in the address (`?year&month`), or this month. */
export function monthFromSearch(params: URLSearchParams, today = dayjs()): CalendarMonth {
  const year = Number(params.get('year'));
  const month = Number(params.get('month'));
  return {
    year: Number.isInteger(year) && year >= 2011 && year <= 9999 ? year : today.year(),
    month: Number.isInteger(month) && month >= 1 && month <= 12 ? month : today.month() + 1,
  };
}
