import { currentUserAnswer, loginsAnswer, readsAsAdmin } from '@agency/contracts';
import { forbidden } from '@agency/platform';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type pg from 'pg';
import { requireSignIn } from '../../signed-in';

/**
 * The signed-in user as the read model knows them (name for the header), and for admins (and
 * auditors) every login with what Settings → Logins offers for it.
 */
export async function usersQueries(fastify: FastifyInstance, { db }: { db: pg.Pool }) {
  requireSignIn(fastify);
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.get('/api/users/me', { schema: { response: { 200: currentUserAnswer } } }, async (request) => {
    const user = request.signedIn;
    const result = await db.query('select name from users where id = $1', [user.id]);
    return { user: { ...user, name: result.rows[0]?.name ?? user.username } };
  });

  app.get('/api/users', { schema: { response: { 200: loginsAnswer } } }, async (request) => {
    if (!readsAsAdmin(request.signedIn.role)) throw forbidden();
    // As many rows as the agency has staff: no paging.
    const logins = await db.query(
      `select u.id, u.name, u.username, u.role, u.tutor_id, u.active,
              t.first_name, t.last_name, t.active as tutor_active, coalesce(t.email, '') <> '' as has_email
         from users u left join tutors t on t.id = u.tutor_id
        order by lower(u.name), lower(u.username), u.id`,
    );
    const waiting = await db.query(
      `select t.id, t.first_name, t.last_name, t.username, coalesce(t.activation_expires_at > now(), false) as sent
         from tutors t
        where t.active and t.user_id is null
          and not exists (select 1 from users u where u.tutor_id = t.id or u.registered_tutor_id = t.id)
        order by t.last_name, t.first_name, t.id`,
    );
    return {
      logins: logins.rows.map((row) => ({
        id: row.id,
        name: row.name,
        username: row.username,
        role: row.role,
        tutorId: row.tutor_id,
        tutorName: row.tutor_id && row.first_name !== null ? `${row.first_name} ${row.last_name}` : null,
        active: row.active,
        // The reset route's own rules: the tutor's address, a tutor still working, a login that is on.
        resetByEmail: row.active && row.has_email === true && row.tutor_active === true,
      })),
      awaitingActivation: waiting.rows.map((row) => ({
        tutorId: row.id,
        name: `${row.first_name} ${row.last_name}`,
        username: row.username,
        activationSent: row.sent,
      })),
    };
  });
}
