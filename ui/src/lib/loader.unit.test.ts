import { describe, expect, it } from 'vitest';
import { HttpError } from './http';
import { createLoader, type LoaderState } from './loader';

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('createLoader', () => {
  it('keeps the newest answer when an earlier, slower request answers later', async () => {
    const pending = new Map<string, ReturnType<typeof deferred<string>>>();
    const loader = createLoader<string, string>((query) => {
      const answer = deferred<string>();
      pending.set(query, answer);
      return answer.promise;
    });
    const seen: LoaderState<string>[] = [];
    loader.subscribe(() => seen.push(loader.current()));

    loader.load('slow');
    loader.load('fast');
    pending.get('fast')!.resolve('fast answer');
    await settle();
    pending.get('slow')!.resolve('slow answer');
    await settle();

    expect(loader.current()).toEqual({ status: 'loaded', data: 'fast answer' });
    expect(seen.some((state) => state.data === 'slow answer')).toBe(false);
  });

  it('aborts the request it drops', async () => {
    const signals: AbortSignal[] = [];
    const loader = createLoader<number, number>((n, signal) => {
      signals.push(signal);
      return new Promise<number>(() => {}).then(() => n);
    });
    loader.load(1);
    loader.load(2);
    await settle();
    expect(signals[0].aborted).toBe(true);
    expect(signals[1].aborted).toBe(false);
  });

  it('shows loading, then a failure carrying the message, and loads again on retry', async () => {
    let calls = 0;
    const loader = createLoader<void, string>(async () => {
      calls += 1;
      if (calls === 1) throw new HttpError(500, 'boom', 'The server is having a bad day.');
      return 'fine';
    });
    loader.load();
    expect(loader.current().status).toBe('loading');
    await settle();
    expect(loader.current()).toEqual({
      status: 'failed',
      error: { message: 'The server is having a bad day.', status: 500 },
    });
    loader.retry();
    expect(loader.current().status).toBe('loading');
    await settle();
    expect(loader.current()).toEqual({ status: 'loaded', data: 'fine' });
  });

  it('ignores the answer of a cancelled request', async () => {
    const answer = deferred<string>();
    const loader = createLoader<void, string>(() => answer.promise);
    loader.load();
    loader.cancel();
    answer.resolve('late');
    await settle();
    expect(loader.current().status).toBe('loading');
  });
});
