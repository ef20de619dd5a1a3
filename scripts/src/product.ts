import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { createMailer, type LoginLimits, MAIL_REACTOR, type ResetLimits } from '@agency/command-service';
import { serviceLogger } from '@agency/platform';
import { Metrics } from '@agency/platform/metrics';
import { ensureReadModels, ProjectionLeadership, ProjectionRunner, projections } from '@agency/projection-service';
import pg from 'pg';
import { type AppRoute, buildApp } from './app';
import type { ProductConfig } from './config';
import { openDatabase } from './database';
import { openEventStore } from './event-store-choice';
import { openPersonalData, startRetentionJob } from './personal-data';

export type RunningProduct = {
  url: string;
  databaseUrl: string;
  /** Set only on the first start of an empty store. */
  createdAdmin?: { username: string; password: string; generated: boolean };
  /** The command side, and the app's one instance (`command.app`) it is registered on. */
  command: Awaited<ReturnType<typeof buildApp>>['command'];
  /** The app's one set of sessions. */
  sessions: Awaited<ReturnType<typeof buildApp>>['sessions'];
  /** Every route of the app, with the tree that added it. */
  routes: AppRoute[];
  /** Whether this instance runs the projections now (one instance per database does). */
  leadership: ProjectionLeadership;
  stop: () => Promise<void>;
};

const UI_DIR = join(import.meta.dirname, '../../ui/dist');

/** The app (command and query trees on one listener), its database and the projection runner, as `npm start` runs them. */
export async function startProduct(
  config: ProductConfig,
  options: {
    log?: (line: string) => void;
    loginLimits?: LoginLimits;
    resetLimits?: ResetLimits;
    /** The app's structured log: `LOG_LEVEL` (default info); tests pass 'silent'. */
    logLevel?: string;
    /** How soon a reactor stopped at an event tries again (tests shorten it). */
    reactorBackoff?: { firstMs: number; maxMs: number };
    /** The commands' "now" (tests move it on, e.g. past a booking's hold). */
    clock?: () => Date;
  } = {},
): Promise<RunningProduct> {
  const log = options.log ?? ((line: string) => console.log(line));
  const database = await openDatabase({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
  // Personal fields are encrypted per data subject in whichever store holds the events.
  const personalData = await openPersonalData(config.dataDir, database.url);
  // Figures for a monitoring system only when an operator set METRICS_TOKEN (README, "Monitoring").
  const metrics = config.metricsToken ? new Metrics(config.metricsToken) : undefined;
  // A PostgreSQL store restored or moved from another cluster must be rebased before any projection reads it.
  const sealed = await openEventStore(config.eventStore, database.url, { log }).catch(async (error) => {
    await personalData.close().catch(() => {});
    await database.stop().catch(() => {});
    throw error;
  });
  const protectedStore = personalData.protect(sealed);
  const store = metrics ? metrics.countAppends(protectedStore) : protectedStore;
  const projectionPool = new pg.Pool({ connectionString: database.url, max: 5 });
  projectionPool.on('error', () => {});
  metrics?.followCheckpoints(projectionPool, {
    projections: 'read.projection_checkpoints',
    reactors: 'command.reactor_checkpoints',
    mailReactor: MAIL_REACTOR,
    // The lag needs only the events' types and times: read without opening their personal fields.
    eventsElsewhere: config.eventStore?.kind === 'esdb' ? sealed : undefined,
  });
  await ensureReadModels(projectionPool, store, projections);
  const runner = new ProjectionRunner(projectionPool, store, projections, (message, error) =>
    log(`${message}: ${error}`),
  );
  // Several instances may share the database: the one holding the leader lock runs the projections
  // and the reactors, the others take over within seconds of its death.
  let reactors: { start(): void; stop(): Promise<void> } | undefined;
  const leadership = new ProjectionLeadership(
    { connectionString: database.url },
    () => {
      runner.start();
      reactors?.start();
    },
    () => {
      runner.stop();
      void reactors?.stop();
    },
    { log: (message, error) => log(error ? `${message}: ${error}` : message) },
  );
  await leadership.start();

  const { app, command, sessions, routes } = await buildApp({
    databaseUrl: database.url,
    store,
    jwtSecret: config.jwtSecret,
    uiDir: UI_DIR,
    timeZone: config.timeZone,
    loginLimits: options.loginLimits,
    trustProxy: config.trustProxy,
    resetLimits: options.resetLimits,
    publicUrl: config.publicUrl,
    logger: serviceLogger(options.logLevel),
    personalData: personalData.vault,
    reactorBackoff: options.reactorBackoff,
    clock: options.clock,
    metrics,
    eventsInDatabase: config.eventStore?.kind !== 'esdb',
    retentionYears: personalData.vault.retentionYears,
    outboxDir: join(config.dataDir, 'outbox'),
    mailer: createMailer({
      smtpUrl: config.smtpUrl,
      outboxDir: join(config.dataDir, 'outbox'),
      from: config.mailFrom,
      log,
      printLinks: config.mailPrintLinks,
    }),
  });
  reactors = command.reactors;
  if (leadership.isLeader) reactors.start();
  const stopRetention = startRetentionJob(personalData.vault, log);
  await app.listen({ port: config.port, host: config.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;

  let createdAdmin: RunningProduct['createdAdmin'];
  if ((await command.accounts.count()) === 0) {
    const password = config.adminPassword ?? randomBytes(12).toString('base64url');
    const system = { id: 'system', username: 'system', role: 'admin' as const };
    const { context, appendedUpTo } = command.actAs(system, randomUUID());
    await command.accounts.register(context, {
      username: config.adminUsername,
      password,
      role: 'admin',
      tutorId: null,
      name: 'Administrator',
    });
    const position = appendedUpTo();
    if (position) await command.deps.projections.waitFor(position, 30_000);
    createdAdmin = { username: config.adminUsername, password, generated: !config.adminPassword };
  }

  let stopping: Promise<void> | undefined;
  const stop = () => {
    // Each step runs even if an earlier one failed: Ctrl-C may already have stopped PostgreSQL.
    const steps = [
      async () => stopRetention(),
      () => app.close(),
      () => leadership.stop(),
      async () => runner.stop(),
      () => store.close(),
      () => personalData.close(),
      () => projectionPool.end(),
      () => database.stop(),
    ];
    stopping ??= (async () => {
      for (const step of steps) await step().catch((error: unknown) => log(`while stopping: ${error}`));
    })();
    return stopping;
  };
  return {
    url: `http://localhost:${port}`,
    databaseUrl: database.url,
    createdAdmin,
    command,
    sessions,
    routes,
    leadership,
    stop,
  };
}
