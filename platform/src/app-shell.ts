import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { apiDescription } from './api-description';
import { refuseNulCharacters } from './data-guards';
import { fieldVisibility } from './field-visibility';
import { frontDoor } from './front-door';
import { installErrorReplies } from './http-errors';
import { sessionToken } from './session-token';
import type { SessionCheck } from './sessions';

export type AppShellOptions = {
  jwtSecret: string;
  /** The server-side sessions every token must name a live one of: checked once per request. */
  sessions: SessionCheck;
  /** The product is reached over https (PUBLIC_URL): HSTS and `Secure` cookies. */
  https: boolean;
  /** What an unknown address gets instead of a 404 (the UI's index.html for a screen's address). */
  onNotFound?: (request: FastifyRequest, reply: FastifyReply) => FastifyReply | undefined;
};

/**
 * What every route of the app shares, registered once on its instance before the command and query
 * plugin trees: error replies, the NUL guard, the OpenAPI description (one document for both
 * trees), the front door's headers, the session check (`app.authenticate`) and the one rule of
 * which fields a role may see in an answer.
 */
export const appShell = fp(
  async (app: FastifyInstance, options: AppShellOptions) => {
    installErrorReplies(app, { onNotFound: options.onNotFound });
    refuseNulCharacters(app);
    // Before the routes: each is described in OpenAPI from its contract schemas.
    await app.register(apiDescription, { title: 'Tutoring agency API' });
    await app.register(frontDoor, { https: options.https });
    await app.register(sessionToken, {
      secret: options.jwtSecret,
      sessions: options.sessions,
      secureCookies: options.https,
    });
    // Before the routes: every answer passes the one rule of which fields the caller's role may see.
    await app.register(fieldVisibility);
  },
  { name: 'app-shell' },
);
