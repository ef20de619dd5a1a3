import { randomBytes, randomUUID } from 'node:crypto';
import { familyLinkBody, familySessionBody, type SessionUser } from '@agency/contracts';
import { client, DomainError, familyAccess } from '@agency/domain';
import { describedBody, HttpError, invalidInput, noteRefusal, securityLog, TOKEN_COOKIE } from '@agency/platform';
import type { Sessions } from '@agency/platform/sessions';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { startSession } from '../auth/auth-routes';
import type { ResetThrottle } from '../auth/reset-throttle';
import { type CommandDependencies, createCommandContext, derivedId, domainToHttp } from '../pipeline/command-pipeline';
import { readModelLookups } from '../read-model/lookups';
import { sha256 } from '../tutors/tutor-routes';
import { FAMILY_LINK_LIFETIME_MS, familySessionUser } from './family-logins';

const TOO_MANY = 'There were too many sign-in links asked for. Please wait an hour and try again.';
const UNKNOWN = 'This sign-in link is not valid. Please ask for a new one.';
const USED = 'This sign-in link has already been used. Please ask for a new one.';
const EXPIRED = 'This sign-in link has expired. Please ask for a new one.';
const TURNED_OFF = 'This family login has been turned off. Please contact the office if this is a mistake.';

/** Who a link request is recorded as: nobody signed in asked for it. */
const LINK_REQUESTER = { id: 'public-family-link', username: 'public', role: 'public' } as unknown as SessionUser;

/**
 * Families sign in by a one-time link (docs/family-access.md):
 * `POST /auth/family/link` records a link for every contact of a family (not erased) with that
 * address, and answers the same for an address nobody has; the mail reactor sends each link.
 * `POST /auth/family/session` spends a link (once, within 15 minutes) for a session like staff's.
 */
export async function familySignInRoutes(
  app: FastifyInstance,
  options: { db: pg.Pool; deps: CommandDependencies; sessions: Sessions; throttle: ResetThrottle },
) {
  const { db, deps, sessions, throttle } = options;
  const lookups = readModelLookups(db);

  /** The link's hash to check it by, its secret apart until mailed, and the request on the contact's stream. */
  async function recordLink(contactId: string, clientId: string) {
    const token = randomBytes(32).toString('base64url');
    const linkId = randomUUID();
    const expiresAt = new Date(Date.now() + FAMILY_LINK_LIFETIME_MS);
    await db.query(
      'insert into auth.family_sign_in_links (token_hash, contact_id, client_id, expires_at) values ($1, $2, $3, $4)',
      [sha256(token), contactId, clientId, expiresAt],
    );
    await db.query('insert into auth.pending_links (id, secret, expires_at) values ($1, $2, $3)', [
      linkId,
      token,
      expiresAt,
    ]);
    const commandId = randomUUID();
    const { context } = createCommandContext(deps, LINK_REQUESTER, commandId, commandId);
    try {
      await context.run(familyAccess.familyAccessStream(contactId), familyAccess.familyAccessDecider, {
        type: 'RequestSignInLink',
        contactId,
        clientId,
        linkId,
        expiresAt: expiresAt.toISOString(),
      });
    } catch (error) {
      // Not recorded, so never mailed: the link must not stay usable or kept.
      await db.query('delete from auth.family_sign_in_links where token_hash = $1', [sha256(token)]);
      await db.query('delete from auth.pending_links where id = $1', [linkId]);
      throw error;
    }
  }

  app.post('/auth/family/link', describedBody(familyLinkBody), async (request) => {
    const parsed = familyLinkBody.safeParse(request.body ?? {});
    if (!parsed.success) throw invalidInput(parsed.error.issues);
    const email = parsed.data.email.toLowerCase();
    // Counted by address typed, known or not, so a known one cannot be told from its limit.
    if (!(await throttle.admit([`email:${email}`], request.ip))) {
      throw new HttpError(429, 'too_many_attempts', TOO_MANY);
    }
    await db.query("delete from auth.family_sign_in_links where expires_at < now() - interval '1 day'");
    for (const { contactId, clientId } of await lookups.familyContactsByEmail(email)) {
      // Not awaited: a known address must not answer measurably later than an unknown one. A
      // login turned off is refused on its stream and gets nothing (the same answer).
      recordLink(contactId, clientId).catch((error: unknown) =>
        request.log.warn({ err: error, contactId }, 'a family sign-in link was not recorded'),
      );
    }
    return { success: true };
  });

  /** Whether the contact may sign in now: of this family on its own stream, the family not erased, its access on. */
  async function mayStillSignIn(contactId: string, clientId: string) {
    const { context } = createCommandContext(deps, LINK_REQUESTER, randomUUID(), randomUUID());
    const family = await context.load(client.clientStream(clientId), client.clientDecider);
    if (family.status !== 'registered' || family.erased || !family.contactIds.has(contactId)) return false;
    const access = await context.load(familyAccess.familyAccessStream(contactId), familyAccess.familyAccessDecider);
    return access.status === 'on';
  }

  app.post('/auth/family/session', describedBody(familySessionBody), async (request, reply) => {
    const parsed = familySessionBody.safeParse(request.body ?? {});
    if (!parsed.success) throw invalidInput(parsed.error.issues);
    const tokenHash = sha256(parsed.data.token);
    const found = await db.query(
      `select contact_id, client_id, used_at is not null as used, expires_at <= now() as expired
         from auth.family_sign_in_links where token_hash = $1`,
      [tokenHash],
    );
    const row = found.rows[0];
    if (!row) throw new HttpError(404, 'unknown_link', UNKNOWN);
    if (row.used) throw new HttpError(410, 'link_used', USED);
    if (row.expired) throw new HttpError(410, 'link_expired', EXPIRED);
    const { contact_id: contactId, client_id: clientId } = row as { contact_id: string; client_id: string };
    const user = familySessionUser(contactId, clientId);
    const refuseTurnedOff = () => {
      noteRefusal(request, 'login-turned-off', user.username);
      return new HttpError(403, 'login_turned_off', TURNED_OFF);
    };
    // Checked before the link is spent: a link of a login turned off is refused and stays unused.
    if (!(await mayStillSignIn(contactId, clientId))) throw refuseTurnedOff();
    // One update spends it: of two requests with one link, only one gets a row back.
    const spent = await db.query(
      'update auth.family_sign_in_links set used_at = now() where token_hash = $1 and used_at is null and expires_at > now()',
      [tokenHash],
    );
    if (spent.rowCount === 0) throw new HttpError(410, 'link_used', USED);
    const token = await startSession(app, sessions, request, reply, user);
    const sessionId = (app.jwt.decode(token) as { sid: string }).sid;
    // Recorded after the session began, then checked again: an admin's turning off (which ends
    // sessions after its event) or an erasure (the same) that came in between ends this one too.
    const commandId = derivedId('family-sign-in', tokenHash);
    const { context, appendedUpTo } = createCommandContext(deps, user, commandId, commandId);
    let refused = false;
    try {
      await context.run(familyAccess.familyAccessStream(contactId), familyAccess.familyAccessDecider, {
        type: 'RecordSignIn',
        contactId,
        clientId,
      });
      if (!(await mayStillSignIn(contactId, clientId))) {
        refused = true;
        throw refuseTurnedOff();
      }
    } catch (error) {
      await sessions.end(sessionId, 'login-turned-off', user.id);
      reply.clearCookie(TOKEN_COOKIE, { path: '/' });
      // A failure that is no refusal (a crash, the database lost) gives the link back: the same
      // link asked again signs in (its sign-in recorded once, under the link's own command id),
      // rather than being told it was used by a sign-in that never happened.
      if (!refused && !(error instanceof DomainError)) {
        await db.query('update auth.family_sign_in_links set used_at = null where token_hash = $1', [tokenHash]);
      }
      throw domainToHttp(error);
    }
    const position = appendedUpTo();
    if (position) await deps.projections.waitFor(position);
    const contact = await lookups.familyContact(contactId);
    securityLog(request, 'family.signed-in', { username: user.username });
    return { token, user: { ...user, name: contact ? `${contact.firstName} ${contact.lastName}` : '' } };
  });
}
