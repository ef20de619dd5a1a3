import type { EventStore } from '@agency/platform';
import type { Metrics } from '@agency/platform/metrics';
import type { Sessions } from '@agency/platform/sessions';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { registerAnswerCompression } from './answer-compression';
import { activityQueries } from './audit/activity-queries';
import { asOfRoutes, pastAwarePool } from './audit/as-of';
import { historyQueries } from './audit/history-queries';
import { invoiceTraceQueries } from './audit/invoice-trace';
import { CheckpointHub, LiveStreams, liveUpdates } from './live/live-updates';
import { calendarFeedQueries } from './queries/family/calendar-feeds';
import { familyAccessQueries } from './queries/family/family-access-queries';
import { familyQueries } from './queries/family/family-queries';
import { healthQueries } from './queries/health-queries';
import { sessionQueries } from './queries/session-queries';
import { accountingExportQueries } from './read-models/accounting-export/queries';
import { agedDebtQueries } from './read-models/aged-debt/queries';
import { agencyQueries } from './read-models/agency/queries';
import { clientsQueries } from './read-models/clients/queries';
import { consultationQueries } from './read-models/consultations/queries';
import { dashboardQueries } from './read-models/dashboard/queries';
import { engagementQueries, engagementView } from './read-models/engagements/queries';
import { familyInvoiceQueries } from './read-models/family-invoices/queries';
import { invoiceQueries, invoiceView } from './read-models/invoices/queries';
import { lessonQueries, timesheetView } from './read-models/lessons/queries';
import { moneyModelQueries } from './read-models/money-models/queries';
import { payRunQueries } from './read-models/pay-runs/queries';
import { payStatementQueries } from './read-models/pay-statements/queries';
import { reminderQueries } from './read-models/reminders/queries';
import { tutorsQueries } from './read-models/tutors/queries';
import { usersQueries } from './read-models/users/queries';
import { invoiceDraftView, workshopQueries } from './read-models/workshops/queries';
import { exportQueries } from './subject-access/export-queries';

export type QueryTreeOptions = {
  /** The read models' pool (`readPool`): every query reads the live schema by name. */
  db: pg.Pool;
  /** For the live updates' LISTEN connection. */
  databaseUrl: string;
  /** The app's one set of sessions (the live updates end a stream whose session ends). */
  sessions: Sessions;
  /** The event store itself, which auditors' queries read (history, invoice trace), never a copy. */
  store: EventStore;
  /** The agency's time zone: what "today" is when a tutor's current students are decided. */
  timeZone?: string;
  clock?: () => Date;
  /** The events are in this database's es.events (true by default; false with EVENT_STORE=esdb): health counts lag. */
  eventsInDatabase?: boolean;
  /** How many years accounting copies are kept after an erasure (RETENTION_YEARS; 6 by default), for the erasure screens. */
  retentionYears?: number;
  /** The product's figures (METRICS_TOKEN): its open live streams. */
  metrics?: Metrics;
};

/**
 * JSON answers of this many bytes and more go compressed. Below it the plain answer and the
 * compressed one both arrive in the first round trip of any connection (a server's first flight
 * is ten segments, some 14 KB), so compressing saves no wait, only a few hundred bytes, at the
 * cost of a brotli encoder run on the event loop for every small read (7 % of an engagement
 * detail's CPU at 1.4 KB, docs/performance.md).
 */
export const COMPRESSED_FROM_BYTES = 4096;

/** The read models' pool: every query reads the live schema by name, so a rebuild's swap is picked up at once. */
export function readPool(databaseUrl: string, log: (error: Error) => void) {
  const db = new pg.Pool({ connectionString: databaseUrl, max: 10, options: '-c search_path=read' });
  db.on('error', log);
  return db;
}

/**
 * The views a command answers with (the lesson save with the week's grid, …): the very functions
 * their GET routes call, with the same role rules, called in this process once the projections
 * show the command.
 */
export function queryViews(db: pg.Pool) {
  return {
    timesheet: timesheetView(db),
    engagement: engagementView(db),
    invoice: invoiceView(db),
    invoiceDraft: invoiceDraftView(db),
  };
}

/**
 * The query side, an encapsulated plugin tree: GET /api/* answered from the read models in schema
 * `read`. The app's shell (session check, field rule, error replies, description) is registered
 * on the instance before it; each route group checks the session itself (`requireSignIn`).
 */
export async function queryTree(app: FastifyInstance, options: QueryTreeOptions) {
  const { db } = options;
  // Reads are many and change nothing: at the default level (info) their two request lines are
  // not written (about 5 % of a read's CPU); warnings (every refusal) and errors still are, and
  // LOG_LEVEL=debug logs every request.
  app.addHook('onRoute', (route) => {
    if (app.log.level === 'info' && !route.logLevel) route.logLevel = 'warn';
  });
  // JSON answers of 4 KB and more go compressed to a client that accepts it: a list page is
  // 20–40 KB of JSON, 5–8 times less compressed, and on a phone's connection it is on the way to
  // the first paint (answer-compression.ts).
  await registerAnswerCompression(app, { from: COMPRESSED_FROM_BYTES });
  const today = { timeZone: options.timeZone ?? 'Europe/London', clock: options.clock ?? (() => new Date()) };
  await app.register(usersQueries, { db });
  await app.register(clientsQueries, { db, today });
  await app.register(tutorsQueries, { db });
  await app.register(sessionQueries, { db, sessions: options.sessions });
  // The views that can be seen as of a past moment (?asOf=): their queries run on a replay then.
  app.addHook('onRoute', asOfRoutes({ pool: db, store: options.store, timeZone: today.timeZone }));
  const pastAware = pastAwarePool(db);
  await app.register(lessonQueries, { db: pastAware });
  await app.register(engagementQueries, { db: pastAware });
  await app.register(invoiceQueries, { db: pastAware, store: options.store });
  await app.register(agencyQueries, { db, retentionYears: options.retentionYears ?? 6 });
  await app.register(consultationQueries, { db });
  await app.register(familyAccessQueries, { db, store: options.store });
  await app.register(familyQueries, { db, today, store: options.store });
  await app.register(calendarFeedQueries, { db, today });
  await app.register(familyInvoiceQueries, { db, today, store: options.store });
  await app.register(reminderQueries, { db });
  // Bank details are read through the sealing layer, never copied into a read model.
  await app.register(payRunQueries, { db, store: options.store });
  await app.register(payStatementQueries, { db, store: options.store });
  await app.register(agedDebtQueries, { db, today });
  await app.register(accountingExportQueries, { db });
  await app.register(moneyModelQueries, { db, today });
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
  const streams = new LiveStreams(options.sessions);
  options.metrics?.followLiveStreams(() => streams.count);
  await app.register(liveUpdates, { hub: new CheckpointHub(options.databaseUrl, db, options.store), streams });
}
