import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { listenLive } from './live-updates';

/** An EventSource as the browser runs one, driven by the test: it opens, carries events, ends, or is refused. */
class FakeEventSource {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSED = 2;
  static made: FakeEventSource[] = [];
  readyState = FakeEventSource.CONNECTING;
  private readonly handlers = new Map<string, ((event: { data?: string }) => void)[]>();
  constructor(readonly url: string) {
    FakeEventSource.made.push(this);
  }
  addEventListener(type: string, handler: (event: { data?: string }) => void) {
    this.handlers.set(type, [...(this.handlers.get(type) ?? []), handler]);
  }
  close() {
    this.readyState = FakeEventSource.CLOSED;
  }
  private emit(type: string, event: { data?: string } = {}) {
    for (const handler of this.handlers.get(type) ?? []) handler(event);
  }
  open() {
    this.readyState = FakeEventSource.OPEN;
    this.emit('open');
  }
  change(readModels: string[]) {
    this.emit('change', { data: JSON.stringify({ readModels }) });
  }
  /** The server ended the stream: the browser opens it again by itself. */
  ended() {
    this.readyState = FakeEventSource.CONNECTING;
    this.emit('error');
  }
  /** A 429 or a 401: the browser gives the stream up. */
  refused() {
    this.readyState = FakeEventSource.CLOSED;
    this.emit('error');
  }
}

describe('the live-update stream of a tab', () => {
  beforeEach(() => {
    FakeEventSource.made = [];
    vi.stubGlobal('EventSource', FakeEventSource);
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('tells every screen to reload once the stream opens again after the server ended it', () => {
    const heard: (string[] | 'all')[] = [];
    const stop = listenLive((moved) => heard.push(moved));
    const [stream] = FakeEventSource.made;
    stream?.open();
    stream?.change(['lessons']);
    stream?.ended();
    stream?.open();
    expect(heard).toEqual([['lessons'], 'all']);
    // The browser reopened it: no second stream.
    expect(FakeEventSource.made).toHaveLength(1);
    stop();
    expect(stream?.readyState).toBe(FakeEventSource.CLOSED);
  });

  it('asks again for a refused stream, later each time, and not once nobody listens', () => {
    const stop = listenLive(() => {});
    FakeEventSource.made[0]?.refused();
    vi.advanceTimersByTime(4_999);
    expect(FakeEventSource.made).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(FakeEventSource.made).toHaveLength(2);
    FakeEventSource.made[1]?.refused();
    vi.advanceTimersByTime(5_000);
    expect(FakeEventSource.made).toHaveLength(2);
    vi.advanceTimersByTime(5_000);
    expect(FakeEventSource.made).toHaveLength(3);
    // Open again: the next refusal waits the first time again.
    FakeEventSource.made[2]?.open();
    FakeEventSource.made[2]?.refused();
    stop();
    vi.advanceTimersByTime(60_000);
    expect(FakeEventSource.made).toHaveLength(3);
  });
});
