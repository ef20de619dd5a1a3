/**
 * Digits grouped by threes with commas, as en-GB writes them: 1234567 → 1,234,567. Written out
 * rather than with Intl.NumberFormat, whose first use on a page loads the locale's data: a long
 * task on a slow phone, in the way of the first paint of every list.
 */
export function groupThousands(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** A whole number with thousands separators, e.g. 12,345. */
export function formatCount(value: number): string {
  const whole = Math.round(Math.abs(value));
  return `${value < 0 && whole !== 0 ? '-' : ''}${groupThousands(String(whole))}`;
}
