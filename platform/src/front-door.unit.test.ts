import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { checkJwtSecret, frontDoor, redactUrl, serviceLogger } from './front-door';
import { installErrorReplies } from './http-errors';
import { sessionToken } from './session-token';

async function appWith(https: boolean) {
  const app = Fastify({ logger: false });
  installErrorReplies(app);
  await app.register(frontDoor, { https });
  app.get('/api/things', async () => ({ things: [] }));
  app.post('/api/things', async (request) => ({ got: request.body }));
  app.post('/auth/local/logout', async () => ({ ok: true }));
  app.get('/index.html', async (_request, reply) => reply.type('text/html').send('<!doctype html><p>hi</p>'));
  return app;
}

const apps: Awaited<ReturnType<typeof appWith>>[] = [];
const made = async (https: boolean) => {
  const app = await appWith(https);
  apps.push(app);
  return app;
};
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

/** An app logging as the services do, into `lines`. */
function loggedApp() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, app: Fastify({ logger: { ...serviceLogger('info'), stream } }) };
}

describe('security headers', () => {
  it('send a CSP of default-src self that no page may frame, nosniff and no referrer; no HSTS over http', async () => {
    const app = await made(false);
    const page = await app.inject({ method: 'GET', url: '/index.html' });
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("object-src 'none'");
    // Emotion's run-time <style> elements.
    expect(csp).toContain("style-src 'self' 'unsafe-inline'");
    expect(csp).not.toContain('upgrade-insecure-requests');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['strict-transport-security']).toBeUndefined();
  });

  it('add HSTS (and upgrade-insecure-requests) only when the product is reached over https', async () => {
    const app = await made(true);
    const page = await app.inject({ method: 'GET', url: '/index.html' });
    expect(page.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
    expect(String(page.headers['content-security-policy'])).toContain('upgrade-insecure-requests');
  });
});

describe('Cache-Control', () => {
  it('is no-store on every API and session answer, errors included, and not imposed on the UI', async () => {
    const app = await made(false);
    const answers = [
      await app.inject({ method: 'GET', url: '/api/things' }),
      await app.inject({ method: 'GET', url: '/api/things?x=1' }),
      await app.inject({ method: 'GET', url: '/api/nothing-here' }),
      await app.inject({ method: 'POST', url: '/auth/local/logout', payload: {} }),
      await app.inject({ method: 'POST', url: '/auth/local/logout', payload: 'x=1' }),
    ];
    for (const answer of answers) expect(answer.headers['cache-control'], answer.body).toBe('no-store');
    expect((await app.inject({ method: 'GET', url: '/index.html' })).headers['cache-control']).toBeUndefined();
  });
});

describe('JSON only', () => {
  it('refuses a POST that is not application/json with 415 and the usual error body, body-less ones too', async () => {
    const app = await made(false);
    const refused = [
      await app.inject({ method: 'POST', url: '/auth/local/logout' }),
      await app.inject({
        method: 'POST',
        url: '/api/things',
        payload: 'a=1',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
      await app.inject({
        method: 'POST',
        url: '/api/things',
        payload: '{"a":1}',
        headers: { 'content-type': 'text/plain' },
      }),
      await app.inject({
        method: 'POST',
        url: '/api/things',
        payload: '--x--',
        headers: { 'content-type': 'multipart/form-data; boundary=x' },
      }),
    ];
    for (const answer of refused) {
      expect(answer.statusCode, answer.body).toBe(415);
      expect(answer.json().error.code).toBe('unsupported_media_type');
      expect(answer.json().error.message).toMatch(/application\/json/);
    }
  });

  it('accepts application/json with or without a charset', async () => {
    const app = await made(false);
    const plain = await app.inject({ method: 'POST', url: '/api/things', payload: { a: 1 } });
    expect(plain.json()).toEqual({ got: { a: 1 } });
    const charset = await app.inject({
      method: 'POST',
      url: '/api/things',
      payload: '{"a":2}',
      headers: { 'content-type': 'Application/JSON; charset=utf-8' },
    });
    expect(charset.json()).toEqual({ got: { a: 2 } });
  });
});

describe('JWT secret', () => {
  it('refuses one shorter than 32 bytes with a clear message, accepts 32 bytes and more', () => {
    expect(() => checkJwtSecret(undefined)).toThrow(/at least 32 bytes/);
    expect(() => checkJwtSecret('short-secret')).toThrow(/JWT_SECRET is 12 bytes long; it must be at least 32 bytes/);
    expect(() => checkJwtSecret('x'.repeat(31))).toThrow(/at least 32 bytes/);
    expect(checkJwtSecret('x'.repeat(32))).toBe('x'.repeat(32));
    // The tests' secret.
    expect(checkJwtSecret('test-secret-test-secret-test-secret')).toBeTruthy();
  });
});

describe('the session token plugin', () => {
  it('refuses to start with a JWT secret under 32 bytes, before anything else', async () => {
    const app = Fastify({ logger: false });
    // Both services register it first thing; its other options do not matter here.
    await expect(app.register(sessionToken, { secret: 'short-secret' } as never)).rejects.toThrow(
      /JWT_SECRET is 12 bytes long; it must be at least 32 bytes/,
    );
  });
});

describe('structured log', () => {
  it('is info unless LOG_LEVEL says otherwise', () => {
    const before = process.env.LOG_LEVEL;
    try {
      delete process.env.LOG_LEVEL;
      expect(serviceLogger().level).toBe('info');
      process.env.LOG_LEVEL = 'warn';
      expect(serviceLogger().level).toBe('warn');
      expect(serviceLogger('silent').level).toBe('silent');
    } finally {
      if (before === undefined) delete process.env.LOG_LEVEL;
      else process.env.LOG_LEVEL = before;
    }
  });

  it('blanks the secret part of activation and reset addresses and secret query parameters', () => {
    expect(redactUrl('/activate/abc-DEF_123')).toBe('/activate/[redacted]');
    expect(redactUrl('/book/confirm/s3cr3t-Token_x')).toBe('/book/confirm/[redacted]');
    expect(redactUrl('/reset/tok3n?x=1')).toBe('/reset/[redacted]?x=1');
    expect(redactUrl('/api/tutors/activate/4b1c')).toBe('/api/tutors/activate/4b1c');
    expect(redactUrl('/login?token=abc&next=%2Fclients')).toBe('/login?token=[redacted]&next=%2Fclients');
    expect(redactUrl('/api/lessons?year=2025&month=3')).toBe('/api/lessons?year=2025&month=3');
    expect(redactUrl('/api/clients?q=pat%20adams&limit=100')).toBe('/api/clients?q=[redacted]&limit=100');
  });

  it('never writes an authorization header, a cookie, a password, an activation code or a token', async () => {
    const { lines, app } = loggedApp();
    await app.register(frontDoor, { https: false });
    app.post('/auth/local/activate', async (request) => {
      // As a careless handler might: the whole body and the headers.
      request.log.info({ body: request.body, headers: request.headers }, 'activation attempt');
      return { ok: true };
    });
    app.get('/activate/:code', async () => 'page');
    await app.inject({
      method: 'POST',
      url: '/auth/local/activate',
      payload: { activationCode: 'CODE-SECRET-1', username: 'amy', password: 'PASSWORD-SECRET-2' },
      headers: { authorization: 'Bearer TOKEN-SECRET-3', cookie: 'token=COOKIE-SECRET-4' },
    });
    await app.inject({ method: 'GET', url: '/activate/CODE-SECRET-5' });
    await app.close();
    const log = lines.join('');
    expect(log).toContain('activation attempt');
    expect(log).toContain('/activate/[redacted]');
    expect(log).toContain('"username":"amy"');
    for (const secret of ['CODE-SECRET-1', 'PASSWORD-SECRET-2', 'TOKEN-SECRET-3', 'COOKIE-SECRET-4', 'CODE-SECRET-5']) {
      expect(log).not.toContain(secret);
    }
  });

  it('never writes a person’s name, e-mail, phone, address, date of birth or allergies from a logged body', async () => {
    const { lines, app } = loggedApp();
    app.post('/api/clients/contact', async (request) => {
      request.log.warn({ body: request.body }, 'a careless handler');
      return { ok: true };
    });
    const personal = {
      firstName: 'PERSONAL-1',
      lastName: 'PERSONAL-2',
      email: 'personal-3@example.com',
      phone: [{ number: 'PERSONAL-4' }],
      address: ['PERSONAL-5'],
      postcode: 'PERSONAL-6',
      dob: 'PERSONAL-7',
      child: { firstName: 'PERSONAL-8', allergies: 'PERSONAL-9' },
    };
    await app.inject({ method: 'POST', url: '/api/clients/contact', payload: { ...personal, clientId: 'c-1' } });
    await app.close();
    const log = lines.join('');
    expect(log).toContain('a careless handler');
    expect(log).toContain('"clientId":"c-1"');
    expect(log).not.toMatch(/PERSONAL-|personal-3/);
  });
});
