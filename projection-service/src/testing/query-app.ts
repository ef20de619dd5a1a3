import type { EventStore } from '@agency/platform';
import { serverLimits } from '@agency/platform';
import { appShell } from '@agency/platform/app-shell';
import { Sessions } from '@agency/platform/sessions';
import Fastify, { type FastifyServerOptions, type RouteOptions } from 'fastify';
import { queryTree, readPool } from '../app';

/**
 * The query side alone on an instance of its own with the app's shell, as the product registers
 * it (without the command side, its reactors and its schemas): for tests of read paths on a store
 * they fill themselves.
 */
export async function buildQueryApp(options: {
  databaseUrl: string;
  jwtSecret: string;
  store: EventStore;
  logger?: FastifyServerOptions['logger'];
  /** Sees every route as it is added, before any is (a test may wrap handlers). */
  onRoute?: (route: RouteOptions) => void;
}) {
  const app = Fastify({ logger: options.logger ?? false, ...serverLimits });
  if (options.onRoute) app.addHook('onRoute', options.onRoute);
  const db = readPool(options.databaseUrl, (error) => app.log.warn({ err: error }, 'idle database connection lost'));
  app.addHook('onClose', () => db.end());
  const sessions = new Sessions(db);
  await app.register(appShell, { jwtSecret: options.jwtSecret, sessions, https: false });
  await app.register(queryTree, { db, databaseUrl: options.databaseUrl, sessions, store: options.store });
  return app;
}
