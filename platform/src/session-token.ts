import { type Role, type SessionUser, sessionUser } from '@agency/contracts';
import fastifyCookie from '@fastify/cookie';
import fastifyJwt from '@fastify/jwt';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { checkJwtSecret } from './front-door';
import { forbidden, HttpError } from './http-errors';

export const TOKEN_COOKIE = 'token';
export const TOKEN_LIFETIME_SECONDS = 60 * 60 * 8;

declare module '@fastify/jwt' {
  interface FastifyJWT {
    payload: SessionUser;
    user: SessionUser;
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The signed-in user, or a 401. */
    authenticate: (request: FastifyRequest) => Promise<SessionUser>;
  }
}

/** The token comes from the `token` cookie or an `Authorization: Bearer` header; both work everywhere. */
export const sessionToken = fp(async (app: FastifyInstance, options: { secret: string; secureCookies?: boolean }) => {
  // Cookies set by any route are `Secure` when the product is reached over https (PUBLIC_URL).
  if (!app.hasDecorator('parseCookie')) {
    await app.register(fastifyCookie, { parseOptions: { secure: options.secureCookies ?? false } });
  }
  await app.register(fastifyJwt, {
    secret: checkJwtSecret(options.secret),
    cookie: { cookieName: TOKEN_COOKIE, signed: false },
    // One algorithm, in signing and in verifying: a token made with another (none, RS256…) is refused.
    sign: { algorithm: 'HS256', expiresIn: TOKEN_LIFETIME_SECONDS },
    verify: { algorithms: ['HS256'] },
  });
  app.decorate('authenticate', async (request: FastifyRequest) => {
    try {
      const payload = await request.jwtVerify<SessionUser>();
      return sessionUser.parse(payload);
    } catch {
      throw new HttpError(401, 'unauthenticated', 'Please log in.');
    }
  });
});

export function requireRole(user: SessionUser, ...roles: Role[]) {
  if (!roles.includes(user.role)) throw forbidden();
}
