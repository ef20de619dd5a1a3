import type { FastifyInstance } from 'fastify';
import { HttpError } from './http-errors';

// In an address it arrives percent-encoded; in a parsed body, JSON.stringify spells it \u0000.
const NUL_IN_URL = /%00|\u0000/i;
const NUL_IN_BODY = /\\u0000/;

/**
 * PostgreSQL can neither store nor compare a NUL character, in text or in jsonb. Refuse it at
 * the door, in the address or anywhere in a body, so it never reaches a query as a 500.
 */
export function refuseNulCharacters(app: FastifyInstance) {
  app.addHook('preValidation', async (request) => {
    if (NUL_IN_URL.test(request.url)) throw new HttpError(400, 'invalid_input', 'The address holds a NUL character.');
    if (request.body !== undefined && NUL_IN_BODY.test(JSON.stringify(request.body))) {
      throw new HttpError(400, 'invalid_input', 'The request holds a NUL character.');
    }
  });
}
