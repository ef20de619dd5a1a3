import dayjs from 'dayjs';

/** dd MMM yyyy, e.g. 05 Mar 2024. */
export function formatDate(value: string | null | undefined): string {
  if (!value) return '';
  const date = dayjs(value);
  return date.isValid() ? date.format('DD MMM YYYY') : value;
}

/** A timesheet column heading: weekday and dd MMM yyyy (spec §9), e.g. Tue 05 Mar 2024. */
export const formatColumnDate = (date: string) => dayjs(date).format('ddd DD MMM YYYY');

/** dd MMM yyyy hh:mm. */
export function formatDateTime(value: string | null | undefined): string {
  if (!value) return '';
  const date = dayjs(value);
  return date.isValid() ? date.format('DD MMM YYYY HH:mm') : value;
}

// Made on first use: the first number format of a page loads the locale's data (a long task on a
// slow phone), which a screen without money (the clients list) never needs.
let money: Intl.NumberFormat | undefined;

/** 0,0.00, e.g. 1,234.50. */
export function formatMoney(value: number | null | undefined): string {
  money ??= new Intl.NumberFormat('en-GB', { minimumFractionDigits: 2, maximumFractionDigits: 2, useGrouping: true });
  return money.format(value ?? 0);
}

/** A fraction as a percentage, e.g. 0.15 → 15%. */
export function formatPercent(fraction: number | null | undefined): string {
  return `${Math.round((fraction ?? 0) * 10000) / 100}%`;
}
