import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { brotliCompressSync } from 'node:zlib';
import fastifyHelmet from '@fastify/helmet';
import fastifyStatic from '@fastify/static';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  checkJwtSecret,
  contentSecurityPolicy,
  frontDoor,
  redactUrl,
  serviceLogger,
  unreadableAddress,
} from './front-door';
import { HttpError, installErrorReplies } from './http-errors';
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

/** A built UI of two files, the asset with its brotli copy beside it, as the build writes them. */
function builtUi() {
  const root = mkdtempSync(join(tmpdir(), 'front-door-ui-'));
  mkdirSync(join(root, 'assets'));
  writeFileSync(join(root, 'index.html'), '<!doctype html><p>hi</p>');
  const script = 'console.log("the app");'.repeat(100);
  writeFileSync(join(root, 'assets', 'app-1a2b.js'), script);
  writeFileSync(join(root, 'assets', 'app-1a2b.js.br'), brotliCompressSync(script));
  return root;
}

/**
 * Answers of every kind the product gives: the API, a refusal, a failure, a 404, a redirect, the
 * UI's index and an asset (200, 304, HEAD), and routes that set headers of their own.
 */
async function everyKindOfAnswer(app: FastifyInstance, root: string) {
  installErrorReplies(app);
  app.get('/api/things', async () => ({ things: [] }));
  app.get('/api/refused', async () => {
    throw new HttpError(400, 'invalid_input', 'No.', { name: 'Required.' });
  });
  app.get('/api/broken', async () => {
    throw new Error('a bug');
  });
  app.get('/moved', async (_request, reply) => reply.redirect('/index.html'));
  // A PDF served with a policy, a disposition and a cache rule of its own.
  app.get('/guide.pdf', async (_request, reply) =>
    reply
      .type('application/pdf')
      .header('content-security-policy', "sandbox; default-src 'none'")
      .header('content-disposition', 'attachment; filename="guide.pdf"')
      .header('cache-control', 'private, max-age=60')
      .header('x-frame-options', 'SAMEORIGIN')
      .send(Buffer.from('%PDF-1.4')),
  );
  await app.register(fastifyStatic, { root, wildcard: true, index: 'index.html', preCompressed: true });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

/** The headers as sent on the wire, names in their case, without the date and the connection's. */
function rawHeaders(base: string, path: string, headers: Record<string, string> = {}, method = 'GET') {
  return new Promise<{ status: number; headers: string[][] }>((resolve, reject) => {
    const asked = get(`${base}${path}`, { headers, method }, (response) => {
      response.resume();
      response.on('end', () => {
        const pairs: string[][] = [];
        for (let index = 0; index < response.rawHeaders.length; index += 2) {
          const name = response.rawHeaders[index] ?? '';
          if (!/^(date|connection|keep-alive)$/i.test(name)) pairs.push([name, response.rawHeaders[index + 1] ?? '']);
        }
        resolve({ status: response.statusCode ?? 0, headers: pairs });
      });
    });
    asked.on('error', reject);
  });
}

describe('security headers computed once', () => {
  const root = builtUi();
  const running: FastifyInstance[] = [];
  afterAll(async () => {
    for (const app of running) await app.close();
    rmSync(root, { recursive: true, force: true });
  });
  /** The front door as it was: @fastify/helmet running helmet's middleware on every request. */
  async function helmetPerRequest(https: boolean) {
    const app = Fastify({ logger: false, trustProxy: true });
    running.push(app);
    await app.register(fastifyHelmet, {
      contentSecurityPolicy: { useDefaults: false, directives: contentSecurityPolicy(https) },
      referrerPolicy: { policy: 'no-referrer' },
      strictTransportSecurity: https ? { maxAge: 31_536_000, includeSubDomains: true } : false,
      xFrameOptions: { action: 'deny' },
    });
    return everyKindOfAnswer(app, root);
  }
  async function frontDoorOnce(https: boolean) {
    const app = Fastify({ logger: false, trustProxy: true });
    running.push(app);
    await app.register(frontDoor, { https });
    return everyKindOfAnswer(app, root);
  }

  let before: { http: string; https: string };
  let after: { http: string; https: string };
  beforeAll(async () => {
    before = { http: await helmetPerRequest(false), https: await helmetPerRequest(true) };
    after = { http: await frontDoorOnce(false), https: await frontDoorOnce(true) };
  });

  it('are the headers helmet set on every kind of answer, name for name and value for value, and a route’s own survive', async () => {
    const etag = (await rawHeaders(before.http, '/assets/app-1a2b.js')).headers.find(([name]) => /^etag$/i.test(name));
    expect(etag).toBeDefined();
    const requests: [string, Record<string, string>, string?][] = [
      ['/api/things', {}],
      ['/api/refused', {}],
      ['/api/broken', {}],
      ['/nowhere', {}],
      ['/moved', {}],
      ['/index.html', {}],
      ['/index.html', {}, 'HEAD'],
      ['/assets/app-1a2b.js', { 'accept-encoding': 'br' }],
      ['/assets/app-1a2b.js', { 'if-none-match': etag?.[1] ?? '' }],
      ['/guide.pdf', {}],
      // An address the router cannot decode.
      ['/api/%zz', {}],
      // Behind a trusted proxy that ended TLS: HSTS rides on the option, not on the request.
      ['/api/things', { 'x-forwarded-proto': 'https' }],
    ];
    for (const scheme of ['http', 'https'] as const) {
      for (const [path, headers, method] of requests) {
        const was = await rawHeaders(before[scheme], path, headers, method);
        const is = await rawHeaders(after[scheme], path, headers, method);
        const label = `${scheme} ${method ?? 'GET'} ${path} ${JSON.stringify(headers)}`;
        expect(is.status, label).toBe(was.status);
        // The API's answers differ by the front door's Cache-Control only (its own test below).
        const comparable = (pairs: string[][]) =>
          path.startsWith('/api/') ? pairs.filter(([name]) => !/^cache-control$/i.test(name)) : pairs;
        expect(comparable(is.headers), label).toEqual(comparable(was.headers));
      }
    }
    const pdf = new Map(
      (await rawHeaders(after.https, '/guide.pdf')).headers.map(([name, value]) => [name?.toLowerCase(), value]),
    );
    expect(pdf.get('content-security-policy')).toBe("sandbox; default-src 'none'");
    expect(pdf.get('content-disposition')).toBe('attachment; filename="guide.pdf"');
    expect(pdf.get('cache-control')).toBe('private, max-age=60');
    expect(pdf.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(pdf.get('strict-transport-security')).toBe('max-age=31536000; includeSubDomains');
  });
});

describe('an address the router cannot read', () => {
  it('is refused with the usual error body and the front door’s headers, not Fastify’s own answer', async () => {
    const app = Fastify({ logger: false, frameworkErrors: unreadableAddress });
    apps.push(app);
    installErrorReplies(app);
    await app.register(frontDoor, { https: true });
    app.get('/api/things/:id', async () => ({}));
    app.get('/activate/:code', async () => 'page');
    const answered = await app.inject({ method: 'GET', url: '/api/things' });
    for (const [url, status] of [
      ['/api/things/%zz', 400],
      [`/api/things/${'a'.repeat(101)}`, 414],
      ['/activate/SECRET-CODE%zz', 400],
    ] as const) {
      const refused = await app.inject({ method: 'GET', url });
      expect(refused.statusCode, url).toBe(status);
      expect(refused.json().error.code, url).toBe('bad_request');
      expect(refused.body, url).not.toContain('SECRET-CODE');
      for (const name of [
        'content-security-policy',
        'strict-transport-security',
        'x-content-type-options',
        'x-frame-options',
        'referrer-policy',
      ]) {
        expect(refused.headers[name], `${url} ${name}`).toBe(answered.headers[name]);
      }
      expect(refused.headers['cache-control'], url).toBe(url.startsWith('/api/') ? 'no-store' : undefined);
    }
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
