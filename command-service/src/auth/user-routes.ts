import { loginActiveBody, newUserBody } from '@agency/contracts';
import { user as userAggregate } from '@agency/domain';
import { notFound, securityLogger } from '@agency/platform';
import type { FastifyInstance } from 'fastify';
import { type CommandDependencies, commandRoute } from '../pipeline/command-pipeline';
import type { Accounts } from './accounts';
import { isTooCommon, TOO_COMMON_PASSWORD } from './common-passwords';

const { userDecider, userStream } = userAggregate;

/** The contract's body, and the common-password rule (server-only: its lists are large). */
const body = newUserBody.superRefine((value, context) => {
  if (isTooCommon(value.password))
    context.addIssue({ code: 'custom', path: ['password'], message: TOO_COMMON_PASSWORD });
});

/**
 * `POST /api/users`: an admin adds a login. `POST /api/users/active/:userId`: an admin turns a
 * login off (it cannot sign in or have its password reset, and its sessions end) or on again.
 * The list is the query side's `GET /api/users` (Settings → Logins).
 */
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

  commandRoute<typeof loginActiveBody, { userId: string }>(app, deps, {
    url: '/api/users/active/:userId',
    roles: ['admin'],
    body: loginActiveBody,
    handle: async ({ body, params }, { run, load, user }) => {
      const { userId } = params;
      const stream = userStream(userId);
      const login = await load(stream, userDecider);
      if (login.status === 'none') throw notFound('There is no such login.');
      if (body.active) {
        await run(stream, userDecider, { type: 'TurnLoginOn' });
        return { login: { id: userId, active: true } };
      }
      const turnOff = (otherActiveAdmins: number) =>
        run(stream, userDecider, { type: 'TurnLoginOff', otherActiveAdmins });
      // Admin is a role given only at registration: a login that is not one never becomes one.
      if (login.role !== 'admin') await turnOff(0);
      // An admin's: one turning-off at a time, counting the admins that are on from their own
      // streams, so two admins turning each other off at once cannot leave the agency without one.
      else
        await accounts.turningOffLogin(userId, async (otherAdmins) => {
          let otherActiveAdmins = 0;
          for (const adminId of otherAdmins) {
            const admin = await load(userStream(adminId), userDecider);
            if (admin.status === 'registered' && admin.role === 'admin' && admin.active) otherActiveAdmins++;
          }
          await turnOff(otherActiveAdmins);
        });
      // Not an event-store write: after the append, and again on a retry (ending ended sessions ends none).
      const ended = await accounts.endSessionsOf(userId, 'login-turned-off');
      if (ended) {
        const entry = { event: 'session.ended', userId, reason: 'login-turned-off', by: user.username, ended };
        securityLogger(app.log).warn(entry, 'session.ended');
      }
      return { login: { id: userId, active: false } };
    },
  });
}
