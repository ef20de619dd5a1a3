import { existsSync } from 'node:fs';
import { join, sep } from 'node:path';
import { type CommandAppOptions, commandTree } from '@agency/command-service';
import { apiDocs, serverLimits, unreadableAddress } from '@agency/platform';
import { appShell } from '@agency/platform/app-shell';
import { type Metrics, metricsRoute } from '@agency/platform/metrics';
import { Sessions } from '@agency/platform/sessions';
import { queryTree, queryViews, readPool } from '@agency/projection-service';
import fastifyStatic from '@fastify/static';
import Fastify, { type FastifyServerOptions, type RouteOptions } from 'fastify';
import pg from 'pg';

export type AppOptions = Omit<CommandAppOptions, 'db' | 'sessions' | 'views'> & {
  jwtSecret: string;
  /** The built UI; served with a fallback to index.html for client-side routes. */
  uiDir?: string;
  /**
   * The reverse proxies in front (TRUST_PROXY: addresses or CIDR ranges): the client address is
   * then read from their X-Forwarded-For. None by default: the socket's address is the client's.
   */
  trustProxy?: string[];
  /** Off unless given (tests stay quiet); `npm start` passes `serviceLogger()`. */
  logger?: FastifyServerOptions['logger'];
  /** The product's figures (METRICS_TOKEN): requests and commands counted, GET /metrics; without, a 404. */
  metrics?: Metrics;
  /** The events are in this database's es.events (true by default; false with EVENT_STORE=esdb): health counts lag. */
  eventsInDatabase?: boolean;
  /** How many years accounting copies are kept after an erasure (RETENTION_YEARS; 6 by default). */
  retentionYears?: number;
};

/** A route of the app, and which tree added it (`app`: the shell's own, the docs, the UI's files). */
export type AppRoute = {
  tree: 'command' | 'query' | 'app';
  method: string;
  url: string;
  schema?: RouteOptions['schema'];
};

/**
 * A screen's address, answered with the app so the router can draw it. Not the API, and not a
 * file: a missing asset (say, a chunk of an older build) is a 404, not a page of HTML.
 */
export function isClientRoute(method: string, url: string): boolean {
  const path = url.split('?')[0] ?? '';
  if (method !== 'GET' && method !== 'HEAD') return false;
  return !/^\/(api|auth)(\/|$)/.test(path) && !/\.[a-z0-9]+$/i.test(path);
}

/**
 * The product's one Fastify instance: the shell every route shares (error replies, front door,
 * session check, field rule, OpenAPI), then the query and command plugin trees side by side, then
 * the API's description, the figures and the UI's files. A command's view is the query side's
 * function called in this process; nothing goes over HTTP between the two.
 */
export async function buildApp(options: AppOptions) {
  const app = Fastify({
    logger: options.logger ?? false,
    trustProxy: options.trustProxy?.length ? options.trustProxy : false,
    ...serverLimits,
    // An address the router cannot read is refused as every bad request is (front-door.ts).
    frameworkErrors: unreadableAddress,
  });
  // Every route as it is added, tagged below with the tree that added it.
  const routes: AppRoute[] = [];
  const added = new Map<RouteOptions, AppRoute[]>();
  app.addHook('onRoute', (route) => {
    const entries = [route.method]
      .flat()
      .map((method) => ({ tree: 'app' as const, method, url: route.url, schema: route.schema }));
    routes.push(...entries);
    added.set(route, entries);
  });
  const tagRoutes = (tree: AppRoute['tree']) => (route: RouteOptions) => {
    for (const entry of added.get(route) ?? []) entry.tree = tree;
  };
  options.metrics?.observe(app);
  const log = (error: Error) => app.log.warn({ err: error }, 'idle database connection lost');
  // The pools close last (onClose hooks run last added, first).
  const db = new pg.Pool({ connectionString: options.databaseUrl, max: 10 });
  db.on('error', log);
  const reads = readPool(options.databaseUrl, log);
  app.addHook('onClose', async () => {
    await reads.end();
    await db.end();
  });

  const sessions = new Sessions(db);
  const uiIndex = options.uiDir && existsSync(join(options.uiDir, 'index.html')) ? options.uiDir : undefined;
  await app.register(appShell, {
    jwtSecret: options.jwtSecret,
    sessions,
    https: (options.publicUrl ?? '').startsWith('https:'),
    onNotFound: (request, reply) =>
      uiIndex && isClientRoute(request.method, request.url) ? reply.sendFile('index.html') : undefined,
  });
  await app.register(async (queries) => {
    queries.addHook('onRoute', tagRoutes('query'));
    await queries.register(queryTree, {
      db: reads,
      databaseUrl: options.databaseUrl,
      sessions,
      store: options.store,
      timeZone: options.timeZone,
      eventsInDatabase: options.eventsInDatabase,
      retentionYears: options.retentionYears,
      metrics: options.metrics,
    });
  });
  let command: Awaited<ReturnType<typeof commandTree>> | undefined;
  await app.register(async (commands) => {
    commands.addHook('onRoute', tagRoutes('command'));
    command = await commandTree(commands, { ...options, db, sessions, views: queryViews(reads) });
  });
  await app.register(apiDocs);
  await app.register(metricsRoute, { metrics: options.metrics });
  if (uiIndex) {
    // Files are looked up per request, so a UI rebuilt under a running server is served whole.
    // Built assets carry a content hash in their names and never change; index.html always may.
    await app.register(fastifyStatic, {
      root: uiIndex,
      wildcard: true,
      index: 'index.html',
      // The build writes .br and .gz beside each asset (ui/compress-assets.ts): sent as they are
      // with Content-Encoding and Vary: Accept-Encoding to a browser that accepts them.
      preCompressed: true,
      cacheControl: false,
      setHeaders: (reply, path) => {
        reply.header(
          'cache-control',
          path.includes(`${sep}assets${sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache',
        );
      },
    });
  }
  if (!command) throw new Error('The command side did not register.');
  return { app, command: { app, ...command }, sessions, routes };
}
