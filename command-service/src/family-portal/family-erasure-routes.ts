import { erasureDecisionBody, familyErasureRequestBody } from '@agency/contracts';
import { client, familyAccess } from '@agency/domain';
import { forbidden, notFound } from '@agency/platform';
import type { FastifyInstance } from 'fastify';
import { type CommandDependencies, commandRoute } from '../pipeline/command-pipeline';

const { erasureRequestDecider, erasureRequestStream } = familyAccess;

/**
 * A family's own request to be erased, and an admin's decision (docs/family-access.md), each an
 * event on `family-erasure-request-{clientId}`. The erasure itself stays the admin's act on the
 * family's page (it is refused while lessons are still being recorded for the family).
 */
export async function familyErasureRoutes(app: FastifyInstance, { deps }: { deps: CommandDependencies }) {
  commandRoute(app, deps, {
    url: '/api/family/erasure-request',
    roles: ['family'],
    body: familyErasureRequestBody,
    handle: async (_input, { run, user }) => {
      const contactId = familyAccess.contactOfFamilyUser(user.id);
      if (!contactId || !user.clientId) throw forbidden();
      const clientId = user.clientId;
      const state = await run(erasureRequestStream(clientId), erasureRequestDecider, {
        type: 'RequestErasure',
        clientId,
        contactId,
      });
      return { erasureRequest: { clientId, state: state.status } };
    },
  });

  commandRoute<typeof erasureDecisionBody, { clientId: string }>(app, deps, {
    url: '/api/clients/erasure-request/decide/:clientId',
    roles: ['admin'],
    body: erasureDecisionBody,
    handle: async ({ body, params }, { run, load }) => {
      const family = await load(client.clientStream(params.clientId), client.clientDecider);
      if (family.status === 'none') throw notFound('There is no such client.');
      const state = await run(erasureRequestStream(params.clientId), erasureRequestDecider, {
        type: 'DecideErasure',
        clientId: params.clientId,
        approve: body.approve,
      });
      return { erasureRequest: { clientId: params.clientId, state: state.status } };
    },
  });
}
