import { readsAsAdmin } from '@agency/contracts';
import { forbidden } from '@agency/platform';
import type { Sessions } from '@agency/platform/sessions';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';

/**
 * `GET /api/tutors/:id/sessions`: for an admin (or an auditor), the live sessions of the tutor's login (the
 * command side's `auth.sessions`, which this service reads on every request anyway).
 */
export async function sessionQueries(app: FastifyInstance, { db, sessions }: { db: pg.Pool; sessions: Sessions }) {
  app.get<{ Params: { id: string } }>('/api/tutors/:id/sessions', async (request) => {
    const user = await app.authenticate(request);
    if (!readsAsAdmin(user.role)) throw forbidden();
    const logins = await db.query('select id from users where tutor_id = $1', [request.params.id]);
    const lists = await Promise.all(logins.rows.map((row) => sessions.listLive(row.id)));
    return { sessions: lists.flat() };
  });
}
