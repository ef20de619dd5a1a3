import dayjs from 'dayjs';
import { groupThousands } from './numbers';

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

/**
 * 0,0.00, e.g. 1,234.50. Rounded half away from zero on the number's shortest decimal form, as
 * Intl.NumberFormat rounds (0.015 → 0.02, where toFixed would give 0.01).
 */
export function formatMoney(value: number | null | undefined): string {
  const amount = value ?? 0;
  const cents = roundedCents(Math.abs(amount));
  const whole = cents.length > 2 ? cents.slice(0, -2) : '0';
  const sign = amount < 0 && /[1-9]/.test(cents) ? '-' : '';
  return `${sign}${groupThousands(whole)}.${cents.slice(-2).padStart(2, '0')}`;
}

/** The digits of `amount` (≥ 0) in hundredths, rounded half up on its shortest decimal form. */
function roundedCents(amount: number): string {
  const text = String(amount);
  // Below a millionth or from 10^21 on, JavaScript writes an exponent: neither is an amount of money.
  if (text.includes('e')) return amount.toFixed(2).replace('.', '');
  const [whole = '0', fraction = ''] = text.split('.');
  const digits = `${whole}${fraction.slice(0, 2).padEnd(2, '0')}`.replace(/^0+(?=\d{3})/, '');
  return (fraction[2] ?? '0') >= '5' ? incremented(digits) : digits;
}

/** A string of decimal digits plus one. */
function incremented(digits: string): string {
  const last = digits.length - 1;
  const digit = digits[last];
  if (digit === undefined) return '1';
  return digit === '9' ? `${incremented(digits.slice(0, last))}0` : `${digits.slice(0, last)}${Number(digit) + 1}`;
}

/** A fraction as a percentage, e.g. 0.15 → 15%. */
export function formatPercent(fraction: number | null | undefined): string {
  return `${Math.round((fraction ?? 0) * 10000) / 100}%`;
}
