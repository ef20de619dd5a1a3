import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Doorbell, LiveDoorbell } from './doorbell';

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

/** A stand-in for the server's live subscription. */
class FakeSubscription extends EventEmitter {
  unsubscribed = false;
  async unsubscribe() {
    this.unsubscribed = true;
    this.emit('close');
  }
}

describe("followAll's live subscription", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  const setUp = () => {
    vi.useFakeTimers();
    const opened: FakeSubscription[] = [];
    const bell = new Doorbell();
    const live = new LiveDoorbell(
      () => {
        const subscription = new FakeSubscription();
        opened.push(subscription);
        return subscription;
      },
      bell,
      { firstMs: 1000, maxMs: 4000 },
    );
    return { opened, bell, live };
  };

  it('rings on every event it delivers', () => {
    const { opened, bell } = setUp();
    bell.clear();
    opened[0]?.emit('data', {});
    expect(bell.rang).toBe(true);
  });

  it('is opened again after an error, rings at once and again once reopened, and the new one rings', async () => {
    const { opened, bell, live } = setUp();
    bell.clear();
    opened[0]?.emit('error', new Error('connection reset'));
    opened[0]?.emit('close');
    expect(bell.rang).toBe(true);
    expect(opened[0]?.unsubscribed).toBe(true);
    expect(opened).toHaveLength(1);
    bell.clear();
    await vi.advanceTimersByTimeAsync(1000);
    expect(opened).toHaveLength(2);
    expect(live.opened).toBe(2);
    expect(bell.rang).toBe(true);
    bell.clear();
    opened[1]?.emit('data', {});
    expect(bell.rang).toBe(true);
    await live.close();
  });

  it('waits longer after each failure in a row (at most the maximum), and 1 s again after one delivered', async () => {
    const { opened, live } = setUp();
    const failAndWait = async (ms: number) => {
      opened.at(-1)?.emit('error', new Error('unavailable'));
      const before = opened.length;
      await vi.advanceTimersByTimeAsync(ms - 1);
      expect(opened).toHaveLength(before);
      await vi.advanceTimersByTimeAsync(1);
      expect(opened).toHaveLength(before + 1);
    };
    await failAndWait(1000);
    await failAndWait(2000);
    await failAndWait(4000);
    await failAndWait(4000);
    opened.at(-1)?.emit('data', {});
    await failAndWait(1000);
    await live.close();
  });

  it('a subscription that cannot even be opened is tried again; none is opened once closed', async () => {
    vi.useFakeTimers();
    let attempts = 0;
    const bell = new Doorbell();
    const live = new LiveDoorbell(
      () => {
        attempts++;
        if (attempts === 1) throw new Error('no server');
        return new FakeSubscription();
      },
      bell,
      { firstMs: 1000, maxMs: 4000 },
    );
    expect(live.opened).toBe(0);
    await vi.advanceTimersByTimeAsync(1000);
    expect(live.opened).toBe(1);
    await live.close();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(attempts).toBe(2);
  });
});
