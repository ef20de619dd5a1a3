import { noBody } from '@agency/contracts';
import { tutor } from '@agency/domain';
import { notFound, securityLogger } from '@agency/platform';
import type { Sessions } from '@agency/platform/sessions';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { z } from 'zod';
import { type CommandDependencies, commandRoute } from '../pipeline/command-pipeline';
import { readModelLookups } from '../read-model/lookups';

const endSessionsBody = noBody.extend({
  /** One session to end; without it, every session of the tutor's logins. */
  sessionId: z.string().min(1).max(100).optional(),
});

/**
 * `POST /api/tutors/sessions/end/:tutorId`: an admin ends the live sessions of a tutor's logins
 * (all, or one). Their list is a query: `GET /api/tutors/:id/sessions` on the projection service.
 */
export async function sessionRoutes(
  app: FastifyInstance,
  { deps, db, sessions }: { deps: CommandDependencies; db: pg.Pool; sessions: Sessions },
) {
  const lookups = readModelLookups(db);
  commandRoute<typeof endSessionsBody, { tutorId: string }>(app, deps, {
    url: '/api/tutors/sessions/end/:tutorId',
    roles: ['admin'],
    body: endSessionsBody,
    handle: async ({ body, params }, { load, user }) => {
      const state = await load(tutor.tutorStream(params.tutorId), tutor.tutorDecider);
      if (state.status === 'none') throw notFound('There is no such tutor.');
      const logins = await lookups.loginsOfTutor(params.tutorId);
      let ended = 0;
      for (const userId of logins) {
        const count = body.sessionId
          ? Number(await sessions.end(body.sessionId, 'ended-by-admin', userId))
          : await sessions.endAllFor(userId, 'ended-by-admin');
        if (count) {
          const entry = { event: 'session.ended', userId, reason: 'ended-by-admin', by: user.username, ended: count };
          securityLogger(app.log).warn(entry, 'session.ended');
        }
        ended += count;
      }
      return { tutorId: params.tutorId, ended };
    },
  });
}
