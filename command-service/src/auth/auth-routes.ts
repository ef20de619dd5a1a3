import type { SessionUser } from '@agency/contracts';
import { HttpError, invalidInput, TOKEN_COOKIE, TOKEN_LIFETIME_SECONDS } from '@agency/platform';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import type { Accounts } from './accounts';
import type { LoginThrottle } from './login-throttle';

const credentials = z.object({
  username: z.string({ error: 'Username is required' }).trim().min(1, 'Username is required').max(100),
  password: z.string({ error: 'Password is required' }).min(1, 'Password is required').max(200),
});

const ENDED = 'Your tutor account has ended. Please contact the office if this is a mistake.';

export function issueToken(app: FastifyInstance, reply: FastifyReply, user: SessionUser) {
  const token = app.jwt.sign({ id: user.id, username: user.username, role: user.role, tutorId: user.tutorId });
  reply.setCookie(TOKEN_COOKIE, token, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    // `secure` comes from the cookie plugin's defaults: true when PUBLIC_URL is https.
    maxAge: TOKEN_LIFETIME_SECONDS,
  });
  return token;
}

export async function authRoutes(
  app: FastifyInstance,
  { accounts, throttle, timeZone }: { accounts: Accounts; throttle: LoginThrottle; timeZone: string },
) {
  app.post('/auth/local', async (request, reply) => {
    const parsed = credentials.safeParse(request.body ?? {});
    if (!parsed.success) throw invalidInput(parsed.error.issues);
    const { username, password } = parsed.data;
    if (throttle.blocked(username, request.ip)) {
      throw new HttpError(429, 'too_many_attempts', 'Too many failed logins. Please wait a few minutes and try again.');
    }
    const user = await accounts.verify(username, password);
    if (!user) {
      throttle.failed(username, request.ip);
      request.log.info({ username }, 'login failed');
      throw new HttpError(401, 'wrong_credentials', 'Wrong username or password.');
    }
    throttle.succeeded(username);
    if (user.tutorEnded) throw new HttpError(403, 'account_ended', ENDED);
    const { name, tutorEnded: _ended, ...sessionUser } = user;
    const token = issueToken(app, reply, sessionUser);
    return { token, user: { ...sessionUser, name } };
  });

  app.get('/auth/local/me', async (request) => {
    const user = await app.authenticate(request);
    const found = await accounts.profile(user.id);
    if (!found || found.tutorEnded) throw new HttpError(401, 'unauthenticated', 'Please log in.');
    const { tutorEnded: _ended, ...profile } = found;
    // The agency's time zone, so the screens' "today" is the agency's, wherever the browser is.
    return { user: profile, agency: { timeZone } };
  });

  app.post('/auth/local/keepalive', async (request, reply) => {
    const user = await app.authenticate(request);
    // A session ends with the tutor's engagement with the agency, not only with its token.
    const found = await accounts.profile(user.id);
    if (!found || found.tutorEnded) throw new HttpError(401, 'unauthenticated', 'Please log in.');
    issueToken(app, reply, user);
    return { ok: true };
  });

  app.post('/auth/local/logout', async (_request, reply) => {
    reply.clearCookie(TOKEN_COOKIE, { path: '/' });
    return { ok: true };
  });
}
