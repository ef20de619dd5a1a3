import { describe, expect, it } from 'vitest';
import { percentile, summarize, versus } from './stats';

describe('the bench arithmetic', () => {
  it('takes the nearest-rank percentile of sorted values', () => {
    const hundred = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(hundred, 0.5)).toBe(50);
    expect(percentile(hundred, 0.99)).toBe(99);
    expect(percentile(hundred, 1)).toBe(100);
    expect(percentile([7], 0.99)).toBe(7);
    expect(percentile([1, 2, 3], 0)).toBe(1);
    expect(percentile([], 0.5)).toBeNaN();
  });

  it('sums a run up as calls per second and percentiles, whatever the order of the durations', () => {
    const summary = summarize([30, 10, 20, 40], 2);
    expect(summary).toEqual({ count: 4, perSecond: 2, p50: 20, p99: 40 });
  });

  it('gives the product as a share of the floor throughput and a multiple of its p99', () => {
    const floor = { count: 100, perSecond: 400, p50: 5, p99: 20 };
    const product = { count: 100, perSecond: 100, p50: 15, p99: 60 };
    expect(versus(product, floor)).toEqual({ throughput: 0.25, p99: 3 });
  });
});
