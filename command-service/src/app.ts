import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type EventStore, installErrorReplies, sessionToken } from '@agency/platform';
import fastifyHttpProxy from '@fastify/http-proxy';
import fastifyStatic from '@fastify/static';
import Fastify, { type FastifyServerOptions } from 'fastify';
import pg from 'pg';
import { Accounts } from './auth/accounts';
import { authRoutes } from './auth/auth-routes';
import { LoginThrottle } from './auth/login-throttle';
import { userRoutes } from './auth/user-routes';
import { clientRoutes } from './clients/client-routes';
import { type CommandDependencies, createCommandContext } from './pipeline/command-pipeline';
import { ProcessedCommands } from './pipeline/idempotency';
import { ProjectionWatch } from './pipeline/projection-watch';
import { COMMAND_SERVICE_SCHEMA } from './schema';

export type CommandAppOptions = {
  databaseUrl: string;
  store: EventStore;
  jwtSecret: string;
  /** Where GET /api/* is answered (the projection service). */
  queryUrl: string;
  /** The built UI; served with a fallback to index.html for client-side routes. */
  uiDir?: string;
  timeZone?: string;
  clock?: () => Date;
  loginThrottle?: LoginThrottle;
  logger?: FastifyServerOptions['logger'];
};

export async function buildCommandApp(options: CommandAppOptions) {
  const app = Fastify({ logger: options.logger ?? false, trustProxy: false });
  const db = new pg.Pool({ connectionString: options.databaseUrl, max: 10 });
  db.on('error', (error) => app.log.warn({ err: error }, 'idle database connection lost'));
  await db.query(COMMAND_SERVICE_SCHEMA);
  const projections = new ProjectionWatch(db);
  await projections.start();
  const deps: CommandDependencies = {
    store: options.store,
    processed: new ProcessedCommands(db),
    projections,
    clock: options.clock ?? (() => new Date()),
  };
  const accounts = new Accounts(db);
  app.addHook('onClose', async () => {
    await projections.stop();
    await db.end();
  });

  const uiIndex = options.uiDir && existsSync(join(options.uiDir, 'index.html')) ? options.uiDir : undefined;
  installErrorReplies(app, {
    onNotFound: (request, reply) => {
      const isPage = request.method === 'GET' && !request.url.startsWith('/api') && !request.url.startsWith('/auth');
      return uiIndex && isPage ? reply.sendFile('index.html') : undefined;
    },
  });
  await app.register(sessionToken, { secret: options.jwtSecret });
  await app.register(authRoutes, { accounts, throttle: options.loginThrottle ?? new LoginThrottle() });
  await app.register(userRoutes, { deps, accounts });
  await app.register(clientRoutes, { deps, db, timeZone: options.timeZone ?? 'Europe/London' });
  await app.register(fastifyHttpProxy, {
    upstream: options.queryUrl,
    prefix: '/api',
    rewritePrefix: '/api',
    httpMethods: ['GET', 'HEAD'],
  });
  if (uiIndex) await app.register(fastifyStatic, { root: uiIndex, wildcard: false, index: 'index.html' });

  /** For start-up and scripts: act as a given user outside an HTTP request. */
  const actAs = (user: Parameters<typeof createCommandContext>[1], commandId: string) =>
    createCommandContext(deps, user, commandId, commandId);
  return { app, accounts, deps, actAs };
}
