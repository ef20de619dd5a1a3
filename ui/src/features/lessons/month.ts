import dayjs from 'dayjs';

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

/** year + month (1–12) → 'YYYY-MM'. */
export const monthKey = (year: number, month: number) => `${year}-${String(month).padStart(2, '0')}`;

/** 'March 2026'. */
export const monthTitle = (year: number, month: number) => dayjs(`${monthKey(year, month)}-01`).format('MMMM YYYY');

/** The month `step` months away. */
export function shiftMonth(year: number, month: number, step: number): { year: number; month: number } {
  const shifted = dayjs(`${monthKey(year, month)}-01`).add(step, 'month');
  return { year: shifted.year(), month: shifted.month() + 1 };
}

/** Timesheet column heading: weekday and DD MMM YYYY (spec §9). */
export const columnDate = (date: string) => dayjs(date).format('ddd DD MMM YYYY');
