/**
 * What wakes a caught-up `followAll`: anyone may `ring` (a live event, an abort, a lost
 * subscription); `wait` resolves at the first ring or after `ms`. A ring while the loop was busy
 * is remembered until `clear`, so it causes another read at once, never a wait.
 */
export class Doorbell {
  private rung = false;
  private wake?: () => void;

  readonly ring = () => {
    this.rung = true;
    this.wake?.();
  };

  get rang() {
    return this.rung;
  }

  clear() {
    this.rung = false;
  }

  wait(ms: number): Promise<void> {
    if (this.rung) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }
}

/** What a doorbell needs of the server's live subscription: that it says so when an event comes or it is lost. */
export type LiveSubscription = {
  on(event: 'data' | 'error' | 'end' | 'close', listener: () => void): unknown;
  unsubscribe(): Promise<void>;
};

export type ResubscribeBackoff = { firstMs: number; maxMs: number };

/**
 * Keeps a live subscription ringing `bell` for as long as it is open: every event on it rings; when
 * it fails or ends, the bell rings (so the loop reads at once) and a new one is opened after a
 * pause (1 s, doubling to 30 s while they keep failing, 1 s again once one delivers), instead of
 * leaving the loop to its fallback poll for good. Each subscription rings once it is open too:
 * whatever was written while none was open is read then.
 */
export class LiveDoorbell {
  /** Subscriptions opened so far, the first included (tests). */
  opened = 0;
  private current?: LiveSubscription;
  private timer?: NodeJS.Timeout;
  private delayMs: number;
  private closed = false;

  constructor(
    private readonly open: () => LiveSubscription,
    private readonly bell: Doorbell,
    private readonly backoff: ResubscribeBackoff = { firstMs: 1000, maxMs: 30_000 },
  ) {
    this.delayMs = backoff.firstMs;
    this.subscribe();
  }

  private subscribe() {
    this.timer = undefined;
    if (this.closed) return;
    let subscription: LiveSubscription;
    try {
      subscription = this.open();
    } catch {
      this.lost(undefined);
      return;
    }
    this.opened++;
    this.current = subscription;
    subscription.on('data', () => {
      this.delayMs = this.backoff.firstMs;
      this.bell.ring();
    });
    const lost = () => this.lost(subscription);
    subscription.on('error', lost);
    subscription.on('end', lost);
    subscription.on('close', lost);
    this.bell.ring();
  }

  private lost(subscription: LiveSubscription | undefined) {
    // One subscription says so in several ways (error, then close): it is replaced once.
    if (this.closed || this.current !== subscription || this.timer) return;
    this.current = undefined;
    subscription?.unsubscribe().catch(() => {});
    this.bell.ring();
    this.timer = setTimeout(() => this.subscribe(), this.delayMs);
    this.delayMs = Math.min(this.backoff.maxMs, this.delayMs * 2);
  }

  async close() {
    this.closed = true;
    clearTimeout(this.timer);
    const subscription = this.current;
    this.current = undefined;
    await subscription?.unsubscribe().catch(() => {});
  }
}
