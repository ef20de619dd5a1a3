/**
 * The bench's arithmetic: a run's durations summed up as throughput and percentiles, and the
 * product's figure as a ratio to the floor's measured in the same run.
 */

/** The value at or below which a share `p` (0–1) of the sorted values lie (nearest rank). */
export const percentile = (sorted: readonly number[], p: number) =>
  sorted.length === 0
    ? Number.NaN
    : (sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] as number);

export type Summary = { count: number; perSecond: number; p50: number; p99: number };

/** A run of `durations` (ms, in any order) that took `seconds` of wall time, all calls counted. */
export function summarize(durations: readonly number[], seconds: number): Summary {
  const sorted = [...durations].sort((a, b) => a - b);
  return {
    count: sorted.length,
    perSecond: seconds > 0 ? sorted.length / seconds : Number.NaN,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
  };
}

/**
 * The product against its floor: throughput as a share of the floor's (1 is as fast as the
 * floor), and p99 as a multiple of the floor's (1 is as quick).
 */
export const versus = (product: Summary, floor: Summary) => ({
  throughput: product.perSecond / floor.perSecond,
  p99: product.p99 / floor.p99,
});

export const perSecond = (value: number) => `${value.toFixed(0)}/s`;
export const ms = (value: number) => `${value.toFixed(1)} ms`;
export const times = (value: number) => `${value.toFixed(2)}×`;
