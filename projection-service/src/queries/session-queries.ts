import { readsAsAdmin, tutorParams, tutorSessionsAnswer } from '@agency/contracts';
import { forbidden } from '@agency/platform';
import type { Sessions } from '@agency/platform/sessions';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type pg from 'pg';
import { requireSignIn } from '../signed-in';

/**
 * `GET /api/tutors/:id/sessions`: for an admin (or an auditor), the live sessions of the tutor's login (the
 * command side's `auth.sessions`, which this service reads on every request anyway).
 */
export async function sessionQueries(fastify: FastifyInstance, { db, sessions }: { db: pg.Pool; sessions: Sessions }) {
  requireSignIn(fastify);
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/api/tutors/:id/sessions',
    { schema: { params: tutorParams, response: { 200: tutorSessionsAnswer } } },
    async (request) => {
      if (!readsAsAdmin(request.signedIn.role)) throw forbidden();
      const logins = await db.query('select id from users where tutor_id = $1', [request.params.id]);
      const lists = await Promise.all(logins.rows.map((row) => sessions.listLive(row.id)));
      return { sessions: lists.flat() };
    },
  );
}
