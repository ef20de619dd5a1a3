import { newUserBody } from '@agency/contracts';
import type { FastifyInstance } from 'fastify';
import { type CommandDependencies, commandRoute } from '../pipeline/command-pipeline';
import type { Accounts } from './accounts';

export async function userRoutes(
  app: FastifyInstance,
  { deps, accounts }: { deps: CommandDependencies; accounts: Accounts },
) {
  commandRoute(app, deps, {
    url: '/api/users',
    roles: ['admin'],
    body: newUserBody,
    handle: async ({ body }, context) => {
      const { userId } = await accounts.register(context, body);
      return { user: { id: userId, username: body.username, role: body.role, tutorId: body.tutorId, name: body.name } };
    },
  });
}
