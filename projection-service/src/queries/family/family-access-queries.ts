import { clientParams, familyAccessAnswer, readsAsAdmin } from '@agency/contracts';
import { familyAccess, fold } from '@agency/domain';
import { type EventStore, forbidden, notFound, type RecordedEvent } from '@agency/platform';
import { Sessions } from '@agency/platform/sessions';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type pg from 'pg';
import { requireSignIn } from '../../signed-in';

/** A recorded event as a decider folds it (the stream's own types, as the store read them). */
const asEvent = (event: RecordedEvent) => ({ type: event.type, data: event.data }) as never;

/**
 * `GET /api/clients/:id/family-access`: for an admin (or an auditor), the family's contacts who
 * can have a login (an e-mail address), whether each one's access is on (read from its own
 * stream, never a copy that may lag) and its live sessions (docs/family-access.md).
 */
export async function familyAccessQueries(fastify: FastifyInstance, { db, store }: { db: pg.Pool; store: EventStore }) {
  requireSignIn(fastify);
  // The command side's sessions (schema auth), read as the session check reads them.
  const sessions = new Sessions(db);
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  /** The new address the family asked for, while no admin has decided on it. */
  const emailChangeOf = async (contactId: string) => {
    const events = await store.readStream(familyAccess.emailChangeStream(contactId));
    const asked = fold(familyAccess.emailChangeDecider, events.map(asEvent));
    return asked.status === 'pending' ? asked.email : null;
  };
  app.get(
    '/api/clients/:id/family-access',
    { schema: { params: clientParams, response: { 200: familyAccessAnswer } } },
    async (request) => {
      if (!readsAsAdmin(request.signedIn.role)) throw forbidden('Family logins are for admins.');
      const family = await db.query('select erased from clients where id = $1', [request.params.id]);
      if (!family.rowCount) throw notFound('There is no such client.');
      const found = await db.query(
        `select id, first_name, last_name, email from contacts where client_id = $1 and email <> '' order by seq`,
        [request.params.id],
      );
      const contacts = await Promise.all(
        found.rows.map(async (row) => {
          const events = await store.readStream(familyAccess.familyAccessStream(row.id));
          const access = fold(familyAccess.familyAccessDecider, events.map(asEvent));
          return {
            id: row.id as string,
            firstName: row.first_name as string,
            lastName: row.last_name as string,
            email: row.email as string,
            familyAccess: access.status === 'on' && !family.rows[0].erased,
            sessions: await sessions.listLive(familyAccess.familyUserId(row.id)),
            emailChange: await emailChangeOf(row.id),
          };
        }),
      );
      const requests = await store.readStream(familyAccess.erasureRequestStream(request.params.id));
      const erasureRequest = fold(familyAccess.erasureRequestDecider, requests.map(asEvent)).status;
      return { erasureRequest, contacts };
    },
  );
}
