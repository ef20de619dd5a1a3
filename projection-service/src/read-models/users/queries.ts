import type { FastifyInstance } from 'fastify';
import type pg from 'pg';

/** The signed-in user as the read model knows them (name for the header). */
export async function usersQueries(app: FastifyInstance, { db }: { db: pg.Pool }) {
  app.get('/api/users/me', async (request) => {
    const user = await app.authenticate(request);
    const result = await db.query('select name from users where id = $1', [user.id]);
    return { user: { ...user, name: result.rows[0]?.name ?? user.username } };
  });
}
