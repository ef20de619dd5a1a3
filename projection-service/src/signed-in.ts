import type { SessionUser } from '@agency/contracts';
import type { FastifyInstance } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller, on a route of a group that requires one (`requireSignIn`): never undefined there. */
    signedIn: SessionUser;
  }
}

/**
 * Authentication once per route group: every route of the (encapsulated) plugin that calls this
 * answers 401 unless the request carries the token of a live session, checked before anything else
 * (parameters included). Role rules stay with each route.
 */
export function requireSignIn(app: FastifyInstance) {
  app.addHook('onRequest', async (request) => {
    request.signedIn = await app.authenticate(request);
  });
}
