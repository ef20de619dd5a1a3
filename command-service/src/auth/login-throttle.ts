/**
 * Failed logins per username and per address in a sliding window. Past the limit, logins are
 * refused with 429 before the password is even checked.
 */
export class LoginThrottle {
  private failures = new Map<string, number[]>();

  constructor(
    private readonly limits = { perUsername: 5, perAddress: 20, windowMs: 15 * 60 * 1000 },
    private readonly now: () => number = Date.now,
  ) {}

  private recent(key: string) {
    const cutoff = this.now() - this.limits.windowMs;
    const times = (this.failures.get(key) ?? []).filter((t) => t > cutoff);
    if (times.length) this.failures.set(key, times);
    else this.failures.delete(key);
    return times;
  }

  blocked(username: string, address: string) {
    return (
      this.recent(`u:${username.toLowerCase()}`).length >= this.limits.perUsername ||
      this.recent(`a:${address}`).length >= this.limits.perAddress
    );
  }

  failed(username: string, address: string) {
    for (const key of [`u:${username.toLowerCase()}`, `a:${address}`]) {
      this.failures.set(key, [...this.recent(key), this.now()]);
    }
  }

  succeeded(username: string) {
    this.failures.delete(`u:${username.toLowerCase()}`);
  }
}
