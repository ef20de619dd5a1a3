import { loginBody, type SessionUser, sessionAnswer, sessionBody } from '@agency/contracts';
import {
  describedBody,
  HttpError,
  invalidInput,
  noteRefusal,
  securityLog,
  TOKEN_COOKIE,
  TOKEN_LIFETIME_SECONDS,
  type TokenClaims,
} from '@agency/platform';
import type { Sessions } from '@agency/platform/sessions';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type Accounts, barredError, barredSessionsEnd, sessionUserOf } from './accounts';
import type { LoginThrottle } from './login-throttle';

/** A token for this user in session `sid`, also set as the cookie. The claims are the caller's to get right. */
export function issueToken(app: FastifyInstance, reply: FastifyReply, user: SessionUser, sid: string) {
  const { id, username, role, tutorId, clientId } = user;
  const claims: TokenClaims = { id, username, role, tutorId, clientId, sid };
  const token = app.jwt.sign(claims);
  reply.setCookie(TOKEN_COOKIE, token, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    // `secure` comes from the cookie plugin's defaults: true when PUBLIC_URL is https.
    maxAge: TOKEN_LIFETIME_SECONDS,
  });
  return token;
}

/** A login, activation or completed reset: a new server-side session, and its token. */
export async function startSession(
  app: FastifyInstance,
  sessions: Sessions,
  request: FastifyRequest,
  reply: FastifyReply,
  user: SessionUser,
) {
  const userAgent = request.headers['user-agent'];
  const sid = await sessions.start(user.id, { userAgent, address: request.ip });
  securityLog(request, 'session.started', { username: user.username });
  return issueToken(app, reply, user, sid);
}

const TOO_MANY = 'Too many failed logins. Please wait a few minutes and try again.';

export async function authRoutes(
  app: FastifyInstance,
  {
    accounts,
    sessions,
    throttle,
    timeZone,
  }: { accounts: Accounts; sessions: Sessions; throttle: LoginThrottle; timeZone: string },
) {
  app.post('/auth/local', describedBody(loginBody), async (request, reply) => {
    const parsed = loginBody.safeParse(request.body ?? {});
    if (!parsed.success) throw invalidInput(parsed.error.issues);
    const { username, password } = parsed.data;
    // Counted before the password is checked: parallel guesses cannot all get through.
    const admission = await throttle.admit(username, request.ip);
    if (!admission.admitted) {
      noteRefusal(request, 'throttled', username);
      reply.header('retry-after', String(admission.retryAfterSeconds));
      throw new HttpError(429, 'too_many_attempts', TOO_MANY);
    }
    const user = await accounts.verify(username, password);
    if (!user) {
      securityLog(request, 'login.failed', { username, reason: 'wrong-credentials' });
      noteRefusal(request, 'wrong-credentials', username);
      throw new HttpError(401, 'wrong_credentials', 'Wrong username or password.');
    }
    await throttle.succeeded(username, request.ip);
    if (user.barred) {
      noteRefusal(request, barredSessionsEnd(user.barred), username);
      throw barredError(user.barred);
    }
    const sessionUser = sessionUserOf(user);
    const token = await startSession(app, sessions, request, reply, sessionUser);
    return { token, user: { ...sessionUser, name: user.name } };
  });

  // A family login asks these two as staff do (docs/family-access.md).
  const families = { families: true };
  app.get('/auth/local/me', { schema: { response: { 200: sessionAnswer } }, config: families }, async (request) => {
    const user = await app.authenticate(request);
    const found = await accounts.profile(user.id);
    if (!found || found.barred) throw new HttpError(401, 'unauthenticated', 'Please log in.');
    // The agency's time zone, so the screens' "today" is the agency's, wherever the browser is.
    return { user: { ...sessionUserOf(found), name: found.name }, agency: { timeZone } };
  });

  // The UI pings this only after user activity: it is what keeps a session from going idle.
  app.post('/auth/local/keepalive', { ...describedBody(sessionBody), config: families }, async (request, reply) => {
    const { user, sessionId } = await app.authenticateSession(request);
    // A session ends with the tutor's engagement with the agency, or its login turned off, not only with its token.
    const found = await accounts.profile(user.id);
    if (!found || found.barred) {
      const reason = barredSessionsEnd(found?.barred ?? 'tutor-ended');
      const ended = await sessions.endAllFor(user.id, reason);
      if (ended) securityLog(request, 'session.ended', { username: user.username, reason, ended });
      noteRefusal(request, reason, user.username);
      throw new HttpError(401, 'unauthenticated', 'Please log in.');
    }
    if (!(await sessions.touch(sessionId))) {
      noteRefusal(request, 'session-over', user.username);
      throw new HttpError(401, 'unauthenticated', 'Please log in.');
    }
    // The user as they are now (a role taken back is gone), never the old token's claims.
    issueToken(app, reply, sessionUserOf(found), sessionId);
    return { ok: true };
  });

  app.post('/auth/local/logout', describedBody(sessionBody), async (request, reply) => {
    // Ends the token's session even if it is already over (nothing to do then).
    const claims = await request.jwtVerify<TokenClaims>().catch(() => undefined);
    if (typeof claims?.sid === 'string' && (await sessions.end(claims.sid, 'logout'))) {
      securityLog(request, 'session.ended', { username: claims.username, reason: 'logout' });
    }
    reply.clearCookie(TOKEN_COOKIE, { path: '/' });
    return { ok: true };
  });
}
