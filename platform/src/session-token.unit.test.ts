import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { HttpError } from './http-errors';
import { securityLog, sessionToken } from './session-token';

/** The token check asks the sessions on every request, and every refusal reaches the security log. */
describe('sessionToken: a live session behind every token, refusals in the security log', () => {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const app = Fastify({ logger: { level: 'info', stream } });
  const asked: string[] = [];
  let verifications = 0;
  const sessions = {
    check: async (sid: string) => {
      asked.push(sid);
      return sid === 'live' ? { live: true as const } : { live: false as const, reason: 'idle' as const };
    },
  };
  const token = (sid?: string) => app.jwt.sign({ id: 'u-1', username: 'ann', role: 'tutor', sid } as never);
  const security = () => lines.filter((line) => line.name === 'security');

  beforeAll(async () => {
    await app.register(sessionToken, { secret: 'unit-secret-unit-secret-unit-secret', sessions });
    // Counts the requests that asked @fastify/jwt to check a signature (it calls itself once more).
    app.addHook('onRequest', async (request) => {
      const verify = request.jwtVerify.bind(request);
      let asked = false;
      request.jwtVerify = ((...args: unknown[]) => {
        if (!asked) verifications += 1;
        asked = true;
        return (verify as (...given: unknown[]) => unknown)(...args);
      }) as typeof request.jwtVerify;
    });
    app.get('/mine', async (request) => ({ user: await app.authenticate(request) }));
    app.post('/guess', async (request) => {
      securityLog(request, 'login.failed', { username: 'ann', reason: 'wrong-credentials' });
      throw new HttpError(429, 'too_many_attempts', 'Wait.');
    });
    await app.ready();
  });
  afterAll(() => app.close());

  it('answers a token whose session is live, and refuses one whose session is over or missing', async () => {
    const live = await app.inject({
      method: 'GET',
      url: '/mine',
      headers: { authorization: `Bearer ${token('live')}` },
    });
    expect(live.statusCode).toBe(200);
    expect(live.json().user).toEqual({ id: 'u-1', username: 'ann', role: 'tutor' });
    const over = token('gone');
    const idle = await app.inject({ method: 'GET', url: '/mine', headers: { authorization: `Bearer ${over}` } });
    expect(idle.statusCode).toBe(401);
    expect(asked).toEqual(['live', 'gone']);
    const none = await app.inject({ method: 'GET', url: '/mine', headers: { authorization: `Bearer ${token()}` } });
    expect(none.statusCode).toBe(401);

    const refused = security().filter((line) => line.event === 'request.refused');
    expect(refused[0]).toMatchObject({ status: 401, username: 'ann', reason: 'session-idle', address: '127.0.0.1' });
    expect(refused[1]).toMatchObject({ status: 401, reason: 'no-session-in-token' });
    expect(JSON.stringify(lines)).not.toContain(over);
  });

  it('checks a token’s signature once, then knows it by header or cookie until it expires; its session every time', async () => {
    const signed = (sid: string) =>
      app.jwt.sign({ id: 'u-2', username: 'bea', role: 'admin', sid } as never, { expiresIn: 60 });
    const mine = (headers: Record<string, string>) => app.inject({ method: 'GET', url: '/mine', headers });
    const short = signed('live');
    const before = verifications;
    expect((await mine({ authorization: `Bearer ${short}` })).statusCode).toBe(200);
    expect(verifications).toBe(before + 1);
    const again = await mine({ cookie: `token=${short}` });
    expect(again.statusCode).toBe(200);
    expect(again.json().user).toEqual({ id: 'u-2', username: 'bea', role: 'admin' });
    expect((await mine({ authorization: `Bearer ${short}` })).statusCode).toBe(200);
    expect(verifications).toBe(before + 1);
    // Known, but its session is over: refused every time.
    const ended = signed('gone');
    for (let i = 0; i < 2; i++) expect((await mine({ authorization: `Bearer ${ended}` })).statusCode).toBe(401);
    // Not a token the header can carry (three parts), though its last part is known: refused.
    expect((await mine({ authorization: `Bearer x ${short}` })).statusCode).toBe(401);
    // Past its expiry it is checked again, and refused.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 61_000);
      expect((await mine({ authorization: `Bearer ${short}` })).statusCode).toBe(401);
      expect((await mine({ cookie: `token=${short}` })).statusCode).toBe(401);
    } finally {
      vi.useRealTimers();
    }
  });

  it('logs failed logins and 429s with the username and address, never the password', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/guess',
      payload: { username: 'ann', password: 'secret-guess' },
      remoteAddress: '10.0.0.7',
    });
    expect(response.statusCode).toBe(429);
    expect(security().find((line) => line.event === 'login.failed')).toMatchObject({
      username: 'ann',
      address: '10.0.0.7',
      reason: 'wrong-credentials',
    });
    expect(security().find((line) => line.status === 429)).toMatchObject({ code: 'too_many_attempts' });
    expect(JSON.stringify(lines)).not.toContain('secret-guess');
  });
});
