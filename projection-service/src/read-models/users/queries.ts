import { currentUserAnswer } from '@agency/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type pg from 'pg';
import { requireSignIn } from '../../signed-in';

/** The signed-in user as the read model knows them (name for the header). */
export async function usersQueries(fastify: FastifyInstance, { db }: { db: pg.Pool }) {
  requireSignIn(fastify);
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.get('/api/users/me', { schema: { response: { 200: currentUserAnswer } } }, async (request) => {
    const user = request.signedIn;
    const result = await db.query('select name from users where id = $1', [user.id]);
    return { user: { ...user, name: result.rows[0]?.name ?? user.username } };
  });
}
