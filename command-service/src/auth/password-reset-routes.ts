import { randomBytes, randomUUID } from 'node:crypto';
import { newPasswordBody, resetRequestBody, type SessionUser } from '@agency/contracts';
import { user as userAggregate } from '@agency/domain';
import { describedBody, HttpError, invalidInput, noteRefusal, securityLog } from '@agency/platform';
import { Sessions } from '@agency/platform/sessions';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { type CommandDependencies, createCommandContext, derivedId } from '../pipeline/command-pipeline';
import { readModelLookups } from '../read-model/lookups';
import { sha256 } from '../tutors/tutor-routes';
import { type Accounts, barredError, barredSessionsEnd, sessionUserOf } from './accounts';
import { startSession } from './auth-routes';
import { refuseCommonPassword } from './common-passwords';
import type { ResetThrottle } from './reset-throttle';

export const RESET_LIFETIME_MS = 60 * 60 * 1000;

const TOO_MANY =
  'There were too many attempts to reset your password. Please contact the admin to have your password reset.';
const UNKNOWN = 'This password reset link is not valid. Please ask for a new one.';
const USED = 'This password reset link has already been used. Please ask for a new one.';
const EXPIRED = 'This password reset link has expired. Please ask for a new one.';

/** Who a reset request is recorded as: nobody signed in asked for it. */
const RESET_REQUESTER = { id: 'public-reset-request', username: 'public', role: 'public' } as unknown as SessionUser;

/**
 * `POST /auth/local/reset` records a reset request for every account the username or e-mail
 * address names (the mail reactor e-mails each its single-use, expiring link), and answers the
 * same for a name nobody has (no account enumeration).
 * `POST /auth/local/password` sets the new password from that link and signs the user in.
 */
export async function passwordResetRoutes(
  app: FastifyInstance,
  options: {
    accounts: Accounts;
    db: pg.Pool;
    deps: CommandDependencies;
    throttle: ResetThrottle;
  },
) {
  const { accounts, db, deps, throttle } = options;
  const lookups = readModelLookups(db);
  const sessions = new Sessions(db);

  /**
   * The token's hash for the check, the token itself under a link id until the mail reactor has
   * mailed it, and the request on the login's stream naming only that link id.
   */
  async function recordResetRequest(userId: string) {
    const token = randomBytes(32).toString('base64url');
    const linkId = randomUUID();
    const expiresAt = new Date(Date.now() + RESET_LIFETIME_MS);
    await db.query('insert into auth.reset_tokens (token_hash, user_id, expires_at) values ($1, $2, $3)', [
      sha256(token),
      userId,
      expiresAt,
    ]);
    await db.query('insert into auth.pending_links (id, secret, expires_at) values ($1, $2, $3)', [
      linkId,
      token,
      expiresAt,
    ]);
    const commandId = randomUUID();
    const { context } = createCommandContext(deps, RESET_REQUESTER, commandId, commandId);
    try {
      await context.run(userAggregate.userStream(userId), userAggregate.userDecider, {
        type: 'RequestPasswordReset',
        linkId,
        expiresAt: expiresAt.toISOString(),
      });
    } catch (error) {
      // Not recorded, so never mailed: the token must not stay usable or kept.
      await db.query('delete from auth.reset_tokens where token_hash = $1', [sha256(token)]);
      await db.query('delete from auth.pending_links where id = $1', [linkId]);
      throw error;
    }
  }

  app.post('/auth/local/reset', describedBody(resetRequestBody), async (request) => {
    const parsed = resetRequestBody.safeParse(request.body ?? {});
    if (!parsed.success) throw invalidInput(parsed.error.issues);
    const identifier = parsed.data.username;
    const recipients = await lookups.resetRecipients(identifier);
    const keys = recipients.length
      ? recipients.map((login) => `account:${login.userId}`)
      : [`name:${identifier.toLowerCase()}`];
    if (!(await throttle.admit(keys, request.ip))) throw new HttpError(429, 'too_many_attempts', TOO_MANY);

    for (const login of recipients) {
      // The same rule as login: an ended tutor's account, or a login turned off, gets no link (and the same answer).
      if (!login.active || (login.role !== 'admin' && !login.tutorActive)) {
        const reason = login.active ? 'account-ended' : 'login-turned-off';
        securityLog(request, 'reset.refused', { username: login.username, reason });
        continue;
      }
      if (!login.email) {
        request.log.warn({ userId: login.userId }, 'password reset asked for an account without an e-mail address');
        continue;
      }
      // Not awaited: a known name must not answer measurably later than an unknown one (and the
      // mail itself is the reactor's). A request that could not be recorded sends nothing: it is
      // logged, and the user asks again.
      recordResetRequest(login.userId).catch((error: unknown) =>
        request.log.warn({ err: error, userId: login.userId }, 'a password reset request could not be recorded'),
      );
    }
    return { success: true };
  });

  /** The login, when this link's change is recorded on it and `password` is the one it set. */
  async function completedBefore(userId: string, commandId: string, password: string) {
    const events = await deps.store.readStream(userAggregate.userStream(userId));
    if (!events.some((event) => event.metadata.commandId === commandId)) return null;
    const profile = await accounts.profile(userId);
    if (!profile || profile.barred) return null;
    return (await accounts.verify(profile.username, password)) ? profile : null;
  }

  app.post('/auth/local/password', describedBody(newPasswordBody), async (request, reply) => {
    const parsed = newPasswordBody.safeParse(request.body ?? {});
    if (!parsed.success) throw invalidInput(parsed.error.issues);
    const tokenHash = sha256(parsed.data.resetToken);
    const found = await db.query(
      'select user_id, used_at, expires_at <= now() as expired from auth.reset_tokens where token_hash = $1',
      [tokenHash],
    );
    const row = found.rows[0];
    if (!row) throw new HttpError(404, 'unknown_link', UNKNOWN);
    // The change this link makes is recorded under an id of the link: the same request again, after
    // one that recorded the change and then died before its answer, is answered as that one would have been.
    const commandId = derivedId('password-reset', tokenHash);
    if (row.used_at) {
      const again = await completedBefore(row.user_id, commandId, parsed.data.password);
      if (again) {
        const token = await startSession(app, sessions, request, reply, sessionUserOf(again));
        return { token, user: { ...sessionUserOf(again), name: again.name } };
      }
      throw new HttpError(410, 'link_used', USED);
    }
    if (row.expired) throw new HttpError(410, 'link_expired', EXPIRED);
    // Before the link is spent, so the user can choose another password with the same link.
    refuseCommonPassword(parsed.data.password);
    const claimed = await db.query(
      'update auth.reset_tokens set used_at = now() where token_hash = $1 and used_at is null and expires_at > now()',
      [tokenHash],
    );
    if (claimed.rowCount === 0) throw new HttpError(410, 'link_used', USED);
    const profile = await accounts.profile(row.user_id);
    if (!profile) throw new HttpError(404, 'unknown_link', UNKNOWN);
    if (profile.barred) {
      // A link sent before the tutor's end or the login's turning off: it sets nothing and signs nobody in.
      noteRefusal(request, barredSessionsEnd(profile.barred), profile.username);
      throw barredError(profile.barred);
    }
    await accounts.setPassword(row.user_id, parsed.data.password);
    // Whoever knew the old password is signed out everywhere; this browser gets a new session below.
    const ended = await sessions.endAllFor(row.user_id, 'password-reset');
    if (ended) securityLog(request, 'session.ended', { username: profile.username, reason: 'password-reset', ended });
    // Any other link still out for this account is spent too.
    await db.query('update auth.reset_tokens set used_at = now() where user_id = $1 and used_at is null', [
      row.user_id,
    ]);
    const sessionUser = sessionUserOf(profile);
    const { context, appendedUpTo } = createCommandContext(deps, sessionUser, commandId, commandId);
    await context.run(userAggregate.userStream(row.user_id), userAggregate.userDecider, {
      type: 'RecordPasswordChange',
      reason: 'reset',
    });
    const position = appendedUpTo();
    if (position) await deps.projections.waitFor(position);
    const token = await startSession(app, sessions, request, reply, sessionUser);
    return { token, user: { ...sessionUserOf(profile), name: profile.name } };
  });
}
