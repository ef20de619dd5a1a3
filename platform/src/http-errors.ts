import { LIMITS } from '@agency/contracts';
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';

/**
 * Both services' Fastify bounds: bodies of 64 KiB at most (413 beyond), and time-outs for a
 * request, an idle connection and a kept-alive one, so a slow or silent client cannot hold a
 * socket for ever.
 */
export const serverLimits = {
  bodyLimit: LIMITS.maxBodyBytes,
  requestTimeout: LIMITS.requestTimeoutMs,
  connectionTimeout: LIMITS.connectionTimeoutMs,
  keepAliveTimeout: LIMITS.keepAliveTimeoutMs,
} satisfies FastifyServerOptions;

/** A refusal with the `{ error: { code, message, fields } }` body every 4xx carries. */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly fields?: Record<string, string>,
  ) {
    super(message);
  }
}

export const notFound = (message: string) => new HttpError(404, 'not_found', message);
export const forbidden = (message = 'You may not do that.') => new HttpError(403, 'forbidden', message);

type ValidationIssue = { path: PropertyKey[]; message: string };

export function invalidInput(issues: ValidationIssue[]): HttpError {
  const fields: Record<string, string> = {};
  for (const issue of issues) {
    const key = issue.path.map(String).join('.') || '_';
    fields[key] ??= issue.message;
  }
  const first = Object.values(fields)[0] ?? 'Invalid input';
  return new HttpError(400, 'invalid_input', first, fields);
}

/** Every error leaves as the same body; an unexpected one is logged and says nothing inside. */
export function installErrorReplies(
  app: FastifyInstance,
  options: { onNotFound?: (request: FastifyRequest, reply: FastifyReply) => FastifyReply | undefined } = {},
) {
  app.setErrorHandler((error, request, reply) => {
    if (error instanceof HttpError) {
      return reply
        .status(error.statusCode)
        .send({ error: { code: error.code, message: error.message, fields: error.fields } });
    }
    // PostgreSQL's data exceptions (class 22: a value out of range, an impossible date…) are the
    // caller's input that slipped past validation: still a 400, never a 500.
    const sqlState = (error as { code?: unknown }).code;
    if (typeof sqlState === 'string' && /^22[0-9A-Z]{3}$/.test(sqlState)) {
      request.log.warn({ err: error }, 'input refused by the database');
      return reply
        .status(400)
        .send({ error: { code: 'invalid_input', message: 'A value in the request is not valid.' } });
    }
    const status = (error as { statusCode?: number }).statusCode;
    if (status === 413) {
      // The route's own limit where it sets a tighter one (the public booking form), else the server's.
      const bytes = request.routeOptions.bodyLimit ?? LIMITS.maxBodyBytes;
      const limit = bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${bytes} bytes`;
      return reply
        .status(413)
        .send({ error: { code: 'payload_too_large', message: `The request is too large (${limit} at most).` } });
    }
    if (status && status >= 400 && status < 500) {
      const code = status === 429 ? 'rate_limited' : status === 415 ? 'unsupported_media_type' : 'bad_request';
      return reply.status(status).send({ error: { code, message: (error as Error).message } });
    }
    request.log.error({ err: error }, 'request failed');
    return reply.status(500).send({ error: { code: 'internal', message: 'Something went wrong on our side.' } });
  });
  app.setNotFoundHandler(
    (request, reply) =>
      options.onNotFound?.(request, reply) ??
      reply.status(404).send({ error: { code: 'not_found', message: `No route ${request.method} ${request.url}` } }),
  );
}
