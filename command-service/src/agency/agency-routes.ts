import { agencyDetailsBody } from '@agency/contracts';
import { agency, toPence, toPounds } from '@agency/domain';
import type { FastifyInstance } from 'fastify';
import { type CommandDependencies, commandRoute, createCommandContext, derivedId } from '../pipeline/command-pipeline';

/**
 * The first start of a store records the agency's details as they shipped (later starts, and
 * other instances starting at the same moment, record nothing).
 */
export async function seedAgencyDetails(deps: CommandDependencies) {
  const system = { id: 'system', username: 'system', role: 'admin' as const };
  // One command id for every start: the seed's event ids derive from it, so two instances starting together append it once.
  const commandId = derivedId('seed-agency-details');
  const { run } = createCommandContext(deps, system, commandId, commandId).context;
  await run(agency.agencyStream(), agency.agencyDecider, { type: 'SeedAgencyDetails' });
}

/** `POST /api/agency`: the settings screen saves the agency's own details as a whole (admins only). */
export async function agencyRoutes(app: FastifyInstance, { deps }: { deps: CommandDependencies }) {
  commandRoute(app, deps, {
    url: '/api/agency',
    roles: ['admin'],
    body: agencyDetailsBody,
    handle: async ({ body }, { run, user }) => {
      const { commandId: _commandId, defaultConsultationAmount, ...fields } = body;
      const details = { ...fields, defaultConsultationPence: toPence(defaultConsultationAmount, 'Amount') };
      const saved = await run(agency.agencyStream(), agency.agencyDecider, {
        type: 'SetAgencyDetails',
        details,
        actor: { role: user.role, tutorId: user.tutorId },
      });
      const { defaultConsultationPence, ...rest } = agency.detailsOf(saved);
      return { agency: { ...rest, defaultConsultationAmount: toPounds(defaultConsultationPence) } };
    },
  });
}
