import { randomBytes } from 'node:crypto';
import { noBody } from '@agency/contracts';
import { describedBody, forbidden, invalidInput } from '@agency/platform';
import { inTransaction } from '@agency/platform/transaction';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type pg from 'pg';
import { absoluteLink } from '../mail/messages';
import { sha256 } from '../tutors/tutor-routes';

type Owner = { kind: 'family'; clientId: string } | { kind: 'agency'; clientId: null };

/**
 * Calendar feeds at unguessable addresses (docs/family-access.md, "Calendar feeds"): a family makes
 * (or replaces) its own feed of its confirmed bookings, an admin the agency's feed of upcoming
 * workshops; each revokes its own. Not the command pipeline: its kept answers would keep the
 * feed's secret, which is only ever in the one answer that made it (its hash is what is stored).
 */
export async function calendarFeedRoutes(app: FastifyInstance, { db, publicUrl }: { db: pg.Pool; publicUrl: string }) {
  const revoke = (client: pg.ClientBase | pg.Pool, owner: Owner) =>
    client.query(
      `update auth.calendar_feeds set revoked_at = now()
        where kind = $1 and client_id is not distinct from $2 and revoked_at is null`,
      [owner.kind, owner.clientId],
    );

  /** A new feed for `owner`, the one before revoked in the same transaction: its URL, with the secret. */
  async function newFeed(owner: Owner) {
    const secret = randomBytes(32).toString('base64url');
    await inTransaction(db, async (client) => {
      await revoke(client, owner);
      await client.query('insert into auth.calendar_feeds (token_hash, kind, client_id) values ($1, $2, $3)', [
        sha256(secret),
        owner.kind,
        owner.clientId,
      ]);
    });
    return { url: absoluteLink(publicUrl, `/api/calendar/${secret}.ics`) };
  }

  const familyOwner = async (request: FastifyRequest): Promise<Owner> => {
    const user = await app.authenticate(request);
    if (user.role !== 'family' || !user.clientId) throw forbidden('Calendar feeds of a family are its own.');
    return { kind: 'family', clientId: user.clientId };
  };
  const agencyOwner = async (request: FastifyRequest): Promise<Owner> => {
    const user = await app.authenticate(request);
    if (user.role !== 'admin') throw forbidden('The agency’s calendar feed is the admins’.');
    return { kind: 'agency', clientId: null };
  };
  const parse = (request: FastifyRequest) => {
    const parsed = noBody.safeParse(request.body ?? {});
    if (!parsed.success) throw invalidInput(parsed.error.issues);
  };

  const families = { ...describedBody(noBody), config: { families: true } };
  app.post('/api/family/calendar-feed', families, async (request) => {
    const owner = await familyOwner(request);
    parse(request);
    return { feed: await newFeed(owner) };
  });
  app.post('/api/family/calendar-feed/revoke', families, async (request) => {
    const owner = await familyOwner(request);
    parse(request);
    return { revoked: (await revoke(db, owner)).rowCount ?? 0 };
  });
  app.post('/api/agency/calendar-feed', describedBody(noBody), async (request) => {
    const owner = await agencyOwner(request);
    parse(request);
    return { feed: await newFeed(owner) };
  });
  app.post('/api/agency/calendar-feed/revoke', describedBody(noBody), async (request) => {
    const owner = await agencyOwner(request);
    parse(request);
    return { revoked: (await revoke(db, owner)).rowCount ?? 0 };
  });
}
