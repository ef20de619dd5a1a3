import { type Role, redactForRole, role } from '@agency/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

/**
 * The role of the session that sent the request, as the token check left it on the request; no
 * role (no valid session, or a check that did not run) is treated as the most restricted.
 */
function roleOf(request: FastifyRequest): Role | undefined {
  const parsed = role.safeParse((request as { user?: { role?: unknown } }).user?.role);
  return parsed.success ? parsed.data : undefined;
}

/**
 * Every JSON answer of the service leaves through the one visibility rule (`redactForRole`) for
 * the caller's role: a route, new or old, cannot hand a tutor a partner share even if its handler
 * forgets to. Register it at the root, before the routes. Answers that are not serialized here
 * (PDFs, streams such as the front door's proxy) are the producing service's business.
 */
export const fieldVisibility = fp(
  async (app: FastifyInstance) => {
    app.addHook('preSerialization', async (request, _reply, payload) => redactForRole(roleOf(request), payload));
  },
  { name: 'field-visibility' },
);
