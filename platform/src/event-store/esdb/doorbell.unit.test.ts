import { describe, expect, it } from 'vitest';
import { Doorbell } from './doorbell';

describe("followAll's doorbell", () => {
  it('a ring while the loop was busy makes the next wait end at once, until cleared', async () => {
    const bell = new Doorbell();
    bell.ring();
    expect(bell.rang).toBe(true);
    await bell.wait(60_000);
    bell.clear();
    expect(bell.rang).toBe(false);
  });

  it('a ring during a wait ends it; without one it ends after its time', async () => {
    const bell = new Doorbell();
    const waiting = bell.wait(60_000);
    bell.ring();
    await waiting;
    bell.clear();
    await bell.wait(1);
    expect(bell.rang).toBe(false);
  });
});
