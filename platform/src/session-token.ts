import { type SessionUser, sessionUser } from '@agency/contracts';
import fastifyCookie from '@fastify/cookie';
import fastifyJwt from '@fastify/jwt';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { checkJwtSecret } from './front-door';
import { HttpError } from './http-errors';
import type { SessionCheck } from './sessions';

export const TOKEN_COOKIE = 'token';
export const TOKEN_LIFETIME_SECONDS = 60 * 60 * 8;

/** The token's claims: the user, and the id of the server-side session it belongs to. */
export type TokenClaims = SessionUser & { sid: string };

declare module '@fastify/jwt' {
  interface FastifyJWT {
    payload: TokenClaims;
    user: TokenClaims;
  }
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * A route a family login may reach (docs/family-access.md). Every other route refuses a
     * family's session before its handler runs, so a route added later is closed to families
     * until it says otherwise, whatever its own role check would have let through.
     */
    families?: boolean;
  }
  interface FastifyInstance {
    /** The signed-in user, or a 401. */
    authenticate: (request: FastifyRequest) => Promise<SessionUser>;
    /** The signed-in user and their live session's id, or a 401. */
    authenticateSession: (request: FastifyRequest) => Promise<{ user: SessionUser; sessionId: string }>;
  }
}

/**
 * The token a request carries, where @fastify/jwt looks for it: an `Authorization: Bearer` header
 * first (two parts, or none is taken), else the `token` cookie.
 */
function tokenOf(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header && /^Bearer\s/i.test(header)) {
    const parts = header.split(' ');
    return parts.length === 2 && parts[1] ? parts[1] : undefined;
  }
  return request.cookies?.[TOKEN_COOKIE] || undefined;
}

/** Why a request was refused, for the security log (never a token or a password). */
const refusals = new WeakMap<FastifyRequest, { reason: string; username?: string }>();

export function noteRefusal(request: FastifyRequest, reason: string, username?: string) {
  refusals.set(request, { reason, username });
}

/**
 * The security log: pino child `security` of the request's logger, one entry per event with the
 * event name, username, client address and reason. Never a password or a token.
 */
export const securityLogger = (log: FastifyBaseLogger) => log.child({ name: 'security' });

export function securityLog(
  request: FastifyRequest,
  event: string,
  fields: { username?: string; reason?: string; [key: string]: unknown } = {},
) {
  securityLogger(request.log).warn(
    { event, address: request.ip, route: request.routeOptions?.url, method: request.method, ...fields },
    event,
  );
}

/**
 * The token comes from the `token` cookie or an `Authorization: Bearer` header; both work everywhere.
 * A valid signature is not enough: the session it names (`sid`) must be live in `sessions` (not
 * ended by a logout, reset, termination, role change or an admin; not idle for an hour; not older
 * than 12 hours), checked on every request. Every 401, 403 and 429 goes to the security log.
 */
export const sessionToken = fp(
  async (app: FastifyInstance, options: { secret: string; sessions: SessionCheck; secureCookies?: boolean }) => {
    // Cookies set by any route are `Secure` when the product is reached over https (PUBLIC_URL).
    if (!app.hasDecorator('parseCookie')) {
      await app.register(fastifyCookie, { parseOptions: { secure: options.secureCookies ?? false } });
    }
    await app.register(fastifyJwt, {
      secret: checkJwtSecret(options.secret),
      cookie: { cookieName: TOKEN_COOKIE, signed: false },
      // One algorithm, in signing and in verifying: a token made with another (none, RS256…) is refused.
      // A token's verified claims are kept (never past its expiry), so a signed-in user's next
      // requests skip the signature's HMAC: whether its session is live is checked every time below.
      sign: { algorithm: 'HS256', expiresIn: TOKEN_LIFETIME_SECONDS },
      verify: { algorithms: ['HS256'], cache: true },
    });
    const refuse = (request: FastifyRequest, reason: string, username?: string) => {
      noteRefusal(request, reason, username);
      // A token whose session is over speaks for nobody: the answer's field rule sees no role.
      (request as { user?: unknown }).user = undefined;
      return new HttpError(401, 'unauthenticated', 'Please log in.');
    };
    // Live answers are reused across requests while the app runs (sessions.ts, `cacheChecks`).
    await options.sessions.cacheChecks?.();
    app.addHook('onClose', async () => {
      await options.sessions.stopCaching?.();
    });
    /**
     * The claims of tokens already verified, by the token's text, until they expire: a signed-in
     * user's next requests skip @fastify/jwt's lookup and verification machinery (a tenth of a
     * small read's CPU). The same trust as the verifier's own cache (the claims of a token whose
     * signature was checked, never past its expiry); whether its session is live is still checked
     * on every request below.
     */
    const verified = new Map<string, TokenClaims & { exp: number }>();
    const VERIFIED_KEPT = 10_000;
    const verify = async (request: FastifyRequest): Promise<TokenClaims> => {
      const token = tokenOf(request);
      const known = token === undefined ? undefined : verified.get(token);
      if (known && known.exp * 1000 > Date.now()) {
        // As jwtVerify leaves it: the field rule and the security log read the caller from here.
        request.user = known;
        return known;
      }
      const claims = await request.jwtVerify<TokenClaims & { exp?: unknown }>();
      const { exp } = claims;
      if (token !== undefined && typeof exp === 'number') {
        if (verified.size >= VERIFIED_KEPT) verified.delete(verified.keys().next().value as string);
        verified.set(token, { ...claims, exp });
      }
      return claims;
    };
    /** One check per request, however many route groups ask for the caller. */
    const checked = new WeakMap<FastifyRequest, Promise<{ user: SessionUser; sessionId: string }>>();
    const authenticateSession = (request: FastifyRequest) => {
      const known = checked.get(request);
      if (known) return known;
      const checking = checkSession(request);
      checked.set(request, checking);
      return checking;
    };
    const checkSession = async (request: FastifyRequest) => {
      let claims: TokenClaims;
      try {
        claims = await verify(request);
      } catch {
        throw refuse(request, 'no-valid-token');
      }
      const user = sessionUser.safeParse(claims);
      if (!user.success || typeof claims.sid !== 'string') throw refuse(request, 'no-session-in-token');
      const state = await options.sessions.check(claims.sid, user.data.id);
      if (!state.live) throw refuse(request, `session-${state.reason}`, user.data.username);
      if (user.data.role === 'family' && request.routeOptions.config?.families !== true) {
        noteRefusal(request, 'family-route-closed', user.data.username);
        throw new HttpError(403, 'forbidden', 'This page is not part of the family pages.');
      }
      return { user: user.data, sessionId: claims.sid };
    };
    app.decorate('authenticateSession', authenticateSession);
    app.decorate('authenticate', async (request: FastifyRequest) => (await authenticateSession(request)).user);

    app.addHook('onError', async (request, _reply, error) => {
      if (!(error instanceof HttpError) || ![401, 403, 429].includes(error.statusCode)) return;
      const user = request.user as Partial<TokenClaims> | undefined;
      const refusal = refusals.get(request);
      securityLog(request, 'request.refused', {
        status: error.statusCode,
        code: error.code,
        username: refusal?.username ?? user?.username,
        reason: refusal?.reason ?? error.code,
      });
    });
  },
);
