import { endFamilySessionsBody, familyAccessBody } from '@agency/contracts';
import { client, familyAccess } from '@agency/domain';
import { notFound, securityLogger } from '@agency/platform';
import type { Sessions } from '@agency/platform/sessions';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { type CommandContext, type CommandDependencies, commandRoute } from '../pipeline/command-pipeline';
import { readModelLookups } from '../read-model/lookups';
import { endFamilyLogins } from './family-logins';

/**
 * An admin's hold on family logins (docs/family-access.md):
 * `POST /api/clients/family-access/:contactId` turns a contact's access off (its links are spent
 * and its sessions ended) or on again; `POST /api/clients/family-sessions/end/:contactId` ends
 * one of its sessions, or all. Their list is the query side's `GET /api/clients/:id/family-access`.
 */
export async function familyAccessRoutes(
  app: FastifyInstance,
  { deps, db, sessions }: { deps: CommandDependencies; db: pg.Pool; sessions: Sessions },
) {
  const lookups = readModelLookups(db);

  /** The contact's family, from the family's own stream: a contact of no family is a 404. */
  async function familyOf(contactId: string, { load }: Pick<CommandContext, 'load'>) {
    const clientId = await lookups.clientOfContact(contactId);
    const family = clientId ? await load(client.clientStream(clientId), client.clientDecider) : undefined;
    if (!clientId || family?.status !== 'registered' || !family.contactIds.has(contactId)) {
      throw notFound('There is no such contact.');
    }
    return clientId;
  }

  const logEnded = (contactId: string, reason: string, by: string, ended: number) => {
    if (!ended) return;
    const userId = familyAccess.familyUserId(contactId);
    securityLogger(app.log).warn({ event: 'session.ended', userId, reason, by, ended }, 'session.ended');
  };

  commandRoute<typeof familyAccessBody, { contactId: string }>(app, deps, {
    url: '/api/clients/family-access/:contactId',
    roles: ['admin'],
    body: familyAccessBody,
    handle: async ({ body, params }, context) => {
      const { contactId } = params;
      const clientId = await familyOf(contactId, context);
      const stream = familyAccess.familyAccessStream(contactId);
      const type = body.active ? 'TurnAccessOn' : 'TurnAccessOff';
      await context.run(stream, familyAccess.familyAccessDecider, { type, contactId, clientId });
      if (!body.active) {
        // Not an event-store write: after the append, and again on a retry (ending ended sessions ends none).
        const ended = await endFamilyLogins(db, sessions, [contactId], 'login-turned-off');
        logEnded(contactId, 'login-turned-off', context.user.username, ended);
      }
      return { contact: { id: contactId, clientId, familyAccess: body.active } };
    },
  });

  commandRoute<typeof endFamilySessionsBody, { contactId: string }>(app, deps, {
    url: '/api/clients/family-sessions/end/:contactId',
    roles: ['admin'],
    body: endFamilySessionsBody,
    handle: async ({ body, params }, context) => {
      const { contactId } = params;
      await familyOf(contactId, context);
      const userId = familyAccess.familyUserId(contactId);
      const ended = body.sessionId
        ? Number(await sessions.end(body.sessionId, 'ended-by-admin', userId))
        : await sessions.endAllFor(userId, 'ended-by-admin');
      logEnded(contactId, 'ended-by-admin', context.user.username, ended);
      return { contactId, ended };
    },
  });
}
