import { newUserBody } from '@agency/contracts';
import type { FastifyInstance } from 'fastify';
import { type CommandDependencies, commandRoute } from '../pipeline/command-pipeline';
import type { Accounts } from './accounts';
import { isTooCommon, TOO_COMMON_PASSWORD } from './common-passwords';

/** The contract's body, and the common-password rule (server-only: its lists are large). */
const body = newUserBody.superRefine((value, context) => {
  if (isTooCommon(value.password))
    context.addIssue({ code: 'custom', path: ['password'], message: TOO_COMMON_PASSWORD });
});

export async function userRoutes(
  app: FastifyInstance,
  { deps, accounts }: { deps: CommandDependencies; accounts: Accounts },
) {
  commandRoute(app, deps, {
    url: '/api/users',
    roles: ['admin'],
    body,
    handle: async ({ body }, context) => {
      const { userId } = await accounts.register(context, body);
      return { user: { id: userId, username: body.username, role: body.role, tutorId: body.tutorId, name: body.name } };
    },
  });
}
