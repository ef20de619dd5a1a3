import { constants } from 'node:zlib';
import type { EventStore } from '@agency/platform';
import {
  apiDescription,
  fieldVisibility,
  frontDoor,
  installErrorReplies,
  refuseNulCharacters,
  serverLimits,
  sessionToken,
} from '@agency/platform';
import type { Metrics } from '@agency/platform/metrics';
import { Sessions } from '@agency/platform/sessions';
import fastifyCompress from '@fastify/compress';
import Fastify, { type FastifyServerOptions, type RouteOptions } from 'fastify';
import pg from 'pg';
import { activityQueries } from './audit/activity-queries';
import { asOfRoutes, pastAwarePool } from './audit/as-of';
import { historyQueries } from './audit/history-queries';
import { invoiceTraceQueries } from './audit/invoice-trace';
import { CheckpointHub, LiveStreams, liveUpdates } from './live/live-updates';
import { healthQueries } from './queries/health-queries';
import { sessionQueries } from './queries/session-queries';
import { agencyQueries } from './read-models/agency/queries';
import { clientsQueries } from './read-models/clients/queries';
import { consultationQueries } from './read-models/consultations/queries';
import { dashboardQueries } from './read-models/dashboard/queries';
import { engagementQueries } from './read-models/engagements/queries';
import { familyInvoiceQueries } from './read-models/family-invoices/queries';
import { invoiceQueries } from './read-models/invoices/queries';
import { lessonQueries } from './read-models/lessons/queries';
import { tutorsQueries } from './read-models/tutors/queries';
import { usersQueries } from './read-models/users/queries';
import { workshopQueries } from './read-models/workshops/queries';
import { exportQueries } from './subject-access/export-queries';

export type QueryAppOptions = {
  databaseUrl: string;
  jwtSecret: string;
  /** The event store itself, which auditors' queries read (history, invoice trace), never a copy. */
  store: EventStore;
  /** The agency's time zone: what "today" is when a tutor's current students are decided. */
  timeZone?: string;
  clock?: () => Date;
  /** Off unless given (tests stay quiet); `npm start` passes `serviceLogger()`. */
  logger?: FastifyServerOptions['logger'];
  /** Where the product is reached: https means HSTS and `Secure` cookies. */
  publicUrl?: string;
  /** Called with every route as it is added (Fastify's onRoute hook), before any is. */
  onRoute?: (route: RouteOptions) => void;
  /** The events are in this database's es.events (true by default; false with EVENT_STORE=esdb): health counts lag. */
  eventsInDatabase?: boolean;
  /** How many years accounting copies are kept after an erasure (RETENTION_YEARS; 6 by default), for the erasure screens. */
  retentionYears?: number;
  /** The product's figures (METRICS_TOKEN): this app counts its requests and its open live streams. */
  metrics?: Metrics;
};

/**
 * The query side: GET /api/* answered from the read models in schema `read`. It verifies the
 * session token itself rather than trusting the front door.
 */
export async function buildQueryApp(options: QueryAppOptions) {
  const app = Fastify({ logger: options.logger ?? false, ...serverLimits });
  if (options.onRoute) app.addHook('onRoute', options.onRoute);
  options.metrics?.observe(app);
  // Reads are many and change nothing: at the default level (info) their two request lines are
  // not written (about 5 % of a read's CPU); warnings (every refusal) and errors still are, and
  // LOG_LEVEL=debug logs every request.
  app.addHook('onRoute', (route) => {
    if (app.log.level === 'info' && !route.logLevel) route.logLevel = 'warn';
  });
  // Every query reads the live schema by name, so a rebuild's swap is picked up at once.
  const db = new pg.Pool({ connectionString: options.databaseUrl, max: 10, options: '-c search_path=read' });
  db.on('error', (error) => app.log.warn({ err: error }, 'idle database connection lost'));
  app.addHook('onClose', () => db.end());
  installErrorReplies(app);
  refuseNulCharacters(app);
  const https = (options.publicUrl ?? '').startsWith('https:');
  await app.register(frontDoor, { https });
  // JSON answers of a kilobyte and more go compressed to a client that accepts it: a list page is
  // 20–40 KB of JSON, 5–8 times less compressed, and on a phone's connection it is on the way to
  // the first paint. Brotli at quality 4 and gzip at level 4: quick enough per answer.
  // Nothing else: server-sent events must flow as written, and PDFs and zips are compressed already.
  await app.register(fastifyCompress, {
    encodings: ['br', 'gzip'],
    threshold: 1024,
    customTypes: /^application\/json(;|$)/,
    brotliOptions: { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } },
    zlibOptions: { level: 4 },
  });
  // Before the routes: each declares its parameters and answers as contract schemas, described in OpenAPI.
  await app.register(apiDescription, { title: 'Tutoring agency: queries' });
  // The command side's sessions: every request's token must name a live one.
  const sessions = new Sessions(db);
  await app.register(sessionToken, { secret: options.jwtSecret, sessions, secureCookies: https });
  // Before the routes: every answer passes the one rule of which fields the caller's role may see.
  await app.register(fieldVisibility);
  const today = { timeZone: options.timeZone ?? 'Europe/London', clock: options.clock ?? (() => new Date()) };
  await app.register(usersQueries, { db });
  await app.register(clientsQueries, { db, today });
  await app.register(tutorsQueries, { db });
  await app.register(sessionQueries, { db, sessions });
  // The views that can be seen as of a past moment (?asOf=): their queries run on a replay then.
  app.addHook('onRoute', asOfRoutes({ pool: db, store: options.store, timeZone: today.timeZone }));
  const pastAware = pastAwarePool(db);
  await app.register(lessonQueries, { db: pastAware });
  await app.register(engagementQueries, { db: pastAware });
  await app.register(invoiceQueries, { db: pastAware });
  await app.register(agencyQueries, { db, retentionYears: options.retentionYears ?? 6 });
  await app.register(consultationQueries, { db });
  await app.register(familyInvoiceQueries, { db, today });
  await app.register(workshopQueries, { db, today });
  await app.register(dashboardQueries, { db, today });
  const audit = { db, store: options.store, timeZone: today.timeZone };
  await app.register(historyQueries, audit);
  await app.register(invoiceTraceQueries, audit);
  await app.register(activityQueries, audit);
  // A family's subject-access export: read models and its streams through the decrypting store.
  await app.register(exportQueries, audit);
  await app.register(healthQueries, { db, eventsInDatabase: options.eventsInDatabase });
  // Open screens hear of read models that moved (server-sent events), so they never poll.
  const streams = new LiveStreams(sessions);
  options.metrics?.followLiveStreams(() => streams.count);
  await app.register(liveUpdates, { hub: new CheckpointHub(options.databaseUrl, db, options.store), streams });
  return app;
}
