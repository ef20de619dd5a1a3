import type { FastifyInstance } from 'fastify';
import { HttpError } from './http-errors';

// In an address it arrives percent-encoded (or raw); in a parsed body, JSON.stringify spells it \u0000.
const nulInUrl = (url: string) => url.includes('\u0000') || /%00/i.test(url);
const nulInBody = (body: unknown) => JSON.stringify(body).includes('\\u0000');

/**
 * PostgreSQL can neither store nor compare a NUL character, in text or in jsonb. Refuse it at
 * the door, in the address or anywhere in a body, so it never reaches a query as a 500.
 */
export function refuseNulCharacters(app: FastifyInstance) {
  app.addHook('preValidation', async (request) => {
    if (nulInUrl(request.url)) throw new HttpError(400, 'invalid_input', 'The address holds a NUL character.');
    if (request.body !== undefined && nulInBody(request.body)) {
      throw new HttpError(400, 'invalid_input', 'The request holds a NUL character.');
    }
  });
}
