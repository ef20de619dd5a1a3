import fastifyHelmet from '@fastify/helmet';
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';
import fp from 'fastify-plugin';
import pino from 'pino';
import { HttpError } from './http-errors';

/** An address of the API or of the session routes: answers that must never be cached. */
export const isApiPath = (url: string) => /^\/(api|auth)(\/|\?|$)/.test(url);

/** The media type of a Content-Type header, without parameters, lower case. */
const mediaTypeOf = (header: string | undefined) => (header ?? '').split(';')[0]?.trim().toLowerCase() ?? '';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The directives of the one Content-Security-Policy the product sends. */
export function contentSecurityPolicy(https: boolean) {
  return {
    'default-src': ["'self'"],
    'base-uri': ["'self'"],
    'connect-src': ["'self'"],
    'font-src': ["'self'", 'data:'],
    'form-action': ["'self'"],
    'frame-ancestors': ["'none'"],
    'img-src': ["'self'", 'data:'],
    'object-src': ["'none'"],
    'script-src': ["'self'"],
    'script-src-attr': ["'none'"],
    // Emotion writes its rules into <style> elements it creates at run time.
    'style-src': ["'self'", "'unsafe-inline'"],
    ...(https ? { 'upgrade-insecure-requests': [] } : {}),
  };
}

export type FrontDoorOptions = {
  /** The product is reached over https (PUBLIC_URL): HSTS is sent. */
  https: boolean;
};

/**
 * What every answer of a service carries and every request must be, in one place:
 * - security headers (helmet): a CSP of `default-src 'self'` that no page may frame, nosniff,
 *   `Referrer-Policy: no-referrer` (activation and reset addresses hold secrets), and HSTS only
 *   when the product is reached over https;
 * - `Cache-Control: no-store` on every answer of /api/* and /auth/*, errors included;
 * - a request that may carry a body (POST…) must say `Content-Type: application/json`, body or
 *   not: a form or a `text/plain` beacon from another page cannot reach a command (415).
 */
export const frontDoor = fp(async (app: FastifyInstance, options: FrontDoorOptions) => {
  // Every answer carries the same security headers, set as helmet sets them (on the raw answer,
  // before anything is sent): computed once here, where @fastify/helmet builds helmet's middleware
  // again for every request (2.6 % of a small read's CPU, docs/performance.md).
  const security = await securityHeaders(options);
  securityHeadersOf.set(app, security);
  app.addHook('onRequest', (_request, reply, done) => {
    for (const [name, value] of security) reply.raw.setHeader(name, value);
    done();
  });
  // Both hooks are plain callbacks, not async: every request passes them, and a promise each is
  // measurable on the smallest reads (docs/performance.md).
  app.addHook('onRequest', (request, _reply, done) => {
    if (!BODY_METHODS.has(request.method)) return done();
    if (mediaTypeOf(request.headers['content-type']) !== 'application/json') {
      return done(
        new HttpError(
          415,
          'unsupported_media_type',
          'The request must be sent as JSON (Content-Type: application/json), with a body of {} when there is nothing to send.',
        ),
      );
    }
    done();
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    if (isApiPath(request.url)) reply.header('cache-control', 'no-store');
    done(null, payload);
  });
});

/** Each server's security headers, for the answers Fastify gives before any hook runs. */
const securityHeadersOf = new WeakMap<FastifyInstance, [string, string | string[]][]>();

/**
 * The server's `frameworkErrors`. An address the router cannot read (a malformed %-escape, a part
 * of more than 100 characters) is answered by Fastify before any hook runs, and on its own it
 * answers with a body of its own shape that repeats the address (which may hold an activation
 * code) and with none of the front door's headers. Here it is refused as every bad request is:
 * the usual error body, the security headers, and no-store on the API.
 */
export function unreadableAddress(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  for (const [name, value] of securityHeadersOf.get(request.server) ?? []) reply.raw.setHeader(name, value);
  if (isApiPath(request.url)) reply.header('cache-control', 'no-store');
  const status = error.statusCode ?? 500;
  if (status >= 500) {
    request.log.error({ err: error }, 'request failed');
    reply.status(500).send({ error: { code: 'internal', message: 'Something went wrong on our side.' } });
    return;
  }
  reply.status(status).send({
    error: {
      code: 'bad_request',
      message: 'This address cannot be read: a %-escape is malformed or a part is too long.',
    },
  });
}

/** The headers helmet gives an answer with the front door's options, as @fastify/helmet sets them. */
async function securityHeaders(options: FrontDoorOptions): Promise<[string, string | string[]][]> {
  const probe = Fastify();
  await probe.register(fastifyHelmet, {
    contentSecurityPolicy: { useDefaults: false, directives: contentSecurityPolicy(options.https) },
    referrerPolicy: { policy: 'no-referrer' },
    strictTransportSecurity: options.https ? { maxAge: 31_536_000, includeSubDomains: true } : false,
    xFrameOptions: { action: 'deny' },
  });
  // Named as helmet names them (Content-Security-Policy…), as they went on the wire before. Node's
  // answers have getRawHeaderNames (since 15.13); @types/node declares it on requests only.
  probe.get('/', (_request, reply) => {
    const answer = reply.raw as typeof reply.raw & { getRawHeaderNames(): string[] };
    reply.send(answer.getRawHeaderNames().map((name) => [name, answer.getHeader(name)]));
  });
  try {
    return (await probe.inject('/')).json() as [string, string | string[]][];
  } finally {
    await probe.close();
  }
}

/**
 * Addresses that carry a secret (activation codes, reset tokens, booking confirmations) are logged without it, and query
 * parameters named like a secret are blanked, and so is a list's search (`q`: a person's name).
 */
export function redactUrl(url: string): string {
  const [path = '', query] = url.split(/\?(.*)/s, 2);
  const safePath = path.replace(/^\/(activate|reset|book\/confirm)\/[^/]+/i, '/$1/[redacted]');
  if (query === undefined) return safePath;
  const safeQuery = query.replace(
    /(^|&)((?:token|code|activationCode|resetToken|password|q)=)[^&]*/gi,
    (_, start: string, name: string) => `${start}${name}[redacted]`,
  );
  return `${safePath}?${safeQuery}`;
}

const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  'password',
  'token',
  'activationCode',
  'resetToken',
  '*.password',
  '*.newPassword',
  '*.token',
  '*.activationCode',
  '*.resetToken',
  '*.authorization',
  '*.cookie',
  // Personal data (docs/personal-data.md), should a body or a payload ever be logged.
  '*.email',
  '*.phone',
  '*.firstName',
  '*.lastName',
  '*.address',
  '*.postcode',
  '*.dob',
  '*.allergies',
  '*.*.email',
  '*.*.phone',
  '*.*.firstName',
  '*.*.lastName',
  '*.*.dob',
  '*.*.allergies',
  // A tutor's bank details (docs/money-models.md, "Pay runs").
  '*.accountName',
  '*.sortCode',
  '*.accountNumber',
  '*.rollNumber',
  '*.*.sortCode',
  '*.*.accountNumber',
];

type LogSink = { write(line: string): void; flush(done?: (error?: Error) => void): void };
let stdout: LogSink | undefined;
/**
 * One writer to stdout for every logger of the process. The lines logged in one turn of the event
 * loop are written together at its end, in one synchronous write, and what is left when the
 * process exits is written then. Never in libuv's thread pool (pino's `sync: false`): a write
 * queued there behind busy threads (password hashing, a large answer's compression) was still
 * waiting when the process exited, and its lines came out after later ones, or not at all.
 */
const stdoutLog = (): LogSink => {
  if (stdout) return stdout;
  const sink = pino.destination({ dest: 1, sync: true });
  let pending = '';
  let exiting = false;
  const flush = () => {
    if (!pending) return;
    const lines = pending;
    pending = '';
    sink.write(lines);
  };
  process.on('exit', () => {
    exiting = true;
    flush();
  });
  stdout = {
    write(line) {
      if (exiting) return void sink.write(line);
      if (!pending) setImmediate(flush);
      pending += line;
    },
    flush(done) {
      flush();
      done?.();
    },
  };
  return stdout;
};

/**
 * Both services' structured log (pino): `info` unless `LOG_LEVEL` says otherwise. The
 * `authorization` and cookie headers, passwords, tokens and codes are censored wherever they
 * appear, and a request's address is logged with its secret parts blanked.
 *
 * Written to stdout once per turn of the event loop (`stdoutLog`): every request logs two lines,
 * and a write each was a system call per line; now the lines of one turn go out together at its
 * end. Nothing waits for a buffer to fill, so a quiet product's log is as current as before, and
 * the lines left when the process exits are written, in order, before it ends.
 */
export function serviceLogger(
  level: string = process.env.LOG_LEVEL || 'info',
): Exclude<FastifyServerOptions['logger'], boolean | undefined> {
  return {
    level,
    stream: stdoutLog(),
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    serializers: {
      req: (request: {
        method: string;
        url: string;
        ip?: string;
        headers?: Record<string, unknown>;
        socket?: { remotePort?: number };
      }) => ({
        method: request.method,
        url: redactUrl(request.url),
        remoteAddress: request.ip,
        userAgent: request.headers?.['user-agent'],
      }),
    },
  };
}

/** A `JWT_SECRET` shorter than this many bytes is refused: HS256 needs a key as long as its hash. */
export const MIN_JWT_SECRET_BYTES = 32;

export function checkJwtSecret(secret: string | undefined): string {
  const bytes = Buffer.byteLength(secret ?? '', 'utf8');
  if (bytes < MIN_JWT_SECRET_BYTES) {
    throw new Error(
      `JWT_SECRET is ${bytes} bytes long; it must be at least ${MIN_JWT_SECRET_BYTES} bytes (e.g. \`openssl rand -hex 32\`). Refusing to start.`,
    );
  }
  return secret as string;
}
