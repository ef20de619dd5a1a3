import { DomainError } from './decider';

/**
 * Money, rates and durations as integers, so that sums are exact and rounding happens in
 * exactly one place per lesson.
 *
 * - Money is integer pence; the API speaks pounds with two decimals (`12.5` or `"12.50"`).
 * - Rates are integer basis points (1 bp = 0.01 %); the API speaks fractions (`0.25`) in
 *   answers and percentages (`25`) in the engagement forms. Both are exactly 2500 bp.
 * - Durations are integer hundredths of an hour; the API speaks decimal hours (`1.5`). We chose
 *   hundredths over minutes because every two-decimal duration a tutor types (`0.33`) is then
 *   exact, and `duration × rate` gives what a calculator gives.
 * - Rounding is half-up (half away from zero), to the last digit kept.
 */

export type Pence = number;
export type BasisPoints = number;
export type Hundredths = number;

const DECIMAL = /^([+-])?(\d*)(?:\.(\d*))?$/;

/** A decimal number as an integer scaled by 10^places, rounded half-up; undefined if it is not a number. */
export function toScaledInteger(value: string | number, places: number): number | undefined {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return undefined;
    text = String(value);
    if (/e/i.test(text)) text = value.toFixed(20);
  } else {
    text = value.trim().replace(/^£/, '').replace(/[,\s]/g, '');
  }
  const match = DECIMAL.exec(text);
  if (!match) return undefined;
  const [, sign, whole = '', fraction = ''] = match;
  if (whole.length === 0 && fraction.length === 0) return undefined;
  const kept = fraction.slice(0, places).padEnd(places, '0');
  const next = fraction.charAt(places);
  const magnitude = Number(`${whole || '0'}${kept}`) + (next >= '5' ? 1 : 0);
  if (!Number.isSafeInteger(magnitude)) return undefined;
  return sign === '-' && magnitude !== 0 ? -magnitude : magnitude;
}

function scaledOrRefuse(value: string | number, places: number, what: string): number {
  const scaled = toScaledInteger(value, places);
  if (scaled === undefined) throw new DomainError('invalid', `${what} must be a number, not "${value}".`);
  return scaled;
}

/** Pounds from the API (number or form string) to integer pence, half-up to the penny. */
export const toPence = (pounds: string | number, what = 'An amount'): Pence => scaledOrRefuse(pounds, 2, what);
/** Integer pence to pounds for an API answer. */
export const toPounds = (pence: Pence): number => pence / 100;

/** A fraction from the API (`0.25`) to basis points (2500). */
export const fractionToBasisPoints = (fraction: string | number, what = 'A rate'): BasisPoints =>
  scaledOrRefuse(fraction, 4, what);
/** Basis points to the API's fraction (2500 → 0.25). */
export const basisPointsToFraction = (bp: BasisPoints): number => bp / 10_000;
/** A percentage from a form (`25`, `12.5`) to basis points (2500, 1250). */
export const percentToBasisPoints = (percent: string | number, what = 'A percentage'): BasisPoints =>
  scaledOrRefuse(percent, 2, what);
/** Basis points to a percentage (2500 → 25). */
export const basisPointsToPercent = (bp: BasisPoints): number => bp / 100;

/** Decimal hours from the API (`1.5`) to hundredths of an hour (150). */
export const toHundredths = (hours: string | number, what = 'Duration'): Hundredths => scaledOrRefuse(hours, 2, what);
/** Hundredths of an hour to decimal hours (150 → 1.5). */
export const toHours = (hundredths: Hundredths): number => hundredths / 100;

/** An integer quotient rounded half away from zero. */
export function divideHalfUp(numerator: number, denominator: number): number {
  const negative = numerator < 0 !== denominator < 0;
  const n = Math.abs(numerator);
  const d = Math.abs(denominator);
  const quotient = Math.floor(n / d) + (2 * (n % d) >= d ? 1 : 0);
  return negative && quotient !== 0 ? -quotient : quotient;
}

/** duration × rate, half-up to the penny. */
export const lessonAmount = (duration: Hundredths, rate: Pence): Pence => divideHalfUp(duration * rate, 100);

/** The agency's commission on an amount, half-up to the penny. */
export const commissionOf = (amount: Pence, commissionRate: BasisPoints): Pence =>
  divideHalfUp(amount * commissionRate, 10_000);

/** The partner's share of the agency's commission, half-up to the penny. */
export const partnerCommissionOf = (commission: Pence, partnerRate: BasisPoints): Pence =>
  divideHalfUp(commission * partnerRate, 10_000);

/** Pence in the spec's 0,0.00 format without a symbol: 123450 → '1,234.50'. */
export function formatAmount(pence: Pence): string {
  const magnitude = Math.abs(pence);
  const pounds = Math.floor(magnitude / 100)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const pennies = (magnitude % 100).toString().padStart(2, '0');
  return `${pence < 0 ? '-' : ''}${pounds}.${pennies}`;
}

/** Pence as pounds for people: 123450 → '£1,234.50', -50 → '-£0.50'. */
export function formatPounds(pence: Pence): string {
  const text = formatAmount(pence);
  return text.startsWith('-') ? `-£${text.slice(1)}` : `£${text}`;
}

/** Basis points as the percentage the spec shows (rate × 100): 2500 → '25', 1250 → '12.5'. */
export const formatPercent = (bp: BasisPoints): string => String(basisPointsToPercent(bp));
