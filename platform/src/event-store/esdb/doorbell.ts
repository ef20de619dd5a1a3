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
