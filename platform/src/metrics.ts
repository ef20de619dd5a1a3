import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { EventStore } from './event-store/event-store';
import { HttpError } from './http-errors';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A route of the command pipeline: counted in `commands_total` by its outcome too. */
    command?: boolean;
  }
}

/** Counting the events a checkpoint has still to handle stops here: a lag this large reads as "at least". */
const LAG_CAP = 10_000;
/** The same, for events read through the store (EventStoreDB): one read of at most this many a checkpoint. */
const STORE_LAG_CAP = 500;

/** The checkpoint tables read at each scrape, never per request (columns as the projections' and reactors' are). */
export type CheckpointTables = {
  /** e.g. `read.projection_checkpoints`: each projection's name, handled types, position and failure. */
  projections: string;
  /** e.g. `command.reactor_checkpoints`, the same columns for the reactors. */
  reactors: string;
  /** The reactor whose waiting events are the mail not yet sent (`mail_outbox_backlog`). */
  mailReactor: string;
  /**
   * Where the events are read when they are not in this database's `es.events` (EventStoreDB):
   * after each checkpoint, through the store. Without it, counted in `es.events` by one query.
   */
  eventsElsewhere?: EventStore;
};

type CheckpointLag = { name: string; stopped: boolean; waiting: number; seconds: number };

const outcomeOf = (status: number) =>
  status < 400 ? 'ok' : status === 409 ? 'conflict' : status < 500 ? 'refused' : 'error';

/** The error code of a refusal's body (`{ error: { code } }`), as the caller got it. */
function errorCodeOf(payload: unknown): string {
  if (typeof payload !== 'string') return 'unknown';
  try {
    const code = (JSON.parse(payload) as { error?: { code?: unknown } }).error?.code;
    return typeof code === 'string' ? code : 'unknown';
  } catch {
    return 'unknown';
  }
}

/** A constant-time comparison of the presented token with the configured one (digests: equal lengths). */
function sameToken(presented: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(presented), digest(expected));
}

/**
 * The product's figures in Prometheus's text format (README, "Monitoring"): requests, commands,
 * appends, live streams, and the lag of every projection and reactor, read at scrape time. Its own
 * registry (never prom-client's global one): two products in one process keep their own figures.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly readers: (() => Promise<void>)[] = [];
  private scraping: Promise<string> | undefined;
  private readonly requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'],
    registers: [this.registry],
  });
  private readonly durations = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by method and route pattern.',
    labelNames: ['method', 'route'],
    registers: [this.registry],
  });
  private readonly commands = new Counter({
    name: 'commands_total',
    help: 'Commands answered, by route and outcome (ok, refused, conflict, error) with the error code.',
    labelNames: ['route', 'outcome', 'code'],
    registers: [this.registry],
  });
  private readonly appended = new Counter({
    name: 'event_store_events_appended_total',
    help: 'Events appended to the event store by this instance.',
    registers: [this.registry],
  });
  private readonly liveStreams = new Gauge({
    name: 'live_streams_open',
    help: 'Live-update streams (server-sent events) open on this instance.',
    registers: [this.registry],
  });
  private readonly lag = {
    projection: {
      events: this.gauge(
        'projection_lag_events',
        'Events a projection handles that it has yet to apply.',
        'projection',
      ),
      seconds: this.gauge(
        'projection_lag_seconds',
        'How long ago the oldest event a projection has yet to apply was recorded (0 when none waits).',
        'projection',
      ),
      stopped: this.gauge(
        'projection_stopped',
        '1 while a projection is stopped at an event it cannot apply.',
        'projection',
      ),
    },
    reactor: {
      events: this.gauge('reactor_lag_events', 'Events a reactor handles that it has yet to react to.', 'reactor'),
      seconds: this.gauge(
        'reactor_lag_seconds',
        'How long ago the oldest event a reactor has yet to react to was recorded (0 when none waits).',
        'reactor',
      ),
      stopped: this.gauge('reactor_stopped', '1 while a reactor is stopped at an event it cannot react to.', 'reactor'),
    },
  };
  private readonly mailBacklog = new Gauge({
    name: 'mail_outbox_backlog',
    help: 'Events the mail reactor has yet to send mail for.',
    registers: [this.registry],
  });
  private readonly readFailures = new Counter({
    name: 'metrics_read_failures_total',
    help: 'Scrapes at which a family of figures could not be read (they are left out of that scrape).',
    labelNames: ['family'],
    registers: [this.registry],
  });

  constructor(private readonly token: string) {
    collectDefaultMetrics({ register: this.registry });
  }

  private gauge(name: string, help: string, label: string) {
    return new Gauge({ name, help, labelNames: [label], registers: [this.registry] });
  }

  /**
   * Counts and times every request of `app` by its route's pattern (never the raw address, which
   * holds ids), and the pipeline's commands by outcome. Before the routes are registered.
   */
  observe(app: FastifyInstance) {
    app.addHook('onSend', async (request, reply, payload) => {
      const { config, url } = request.routeOptions;
      if (!config?.command || !url) return payload;
      const outcome = outcomeOf(reply.statusCode);
      this.commands.inc({ route: url, outcome, code: outcome === 'ok' ? '' : errorCodeOf(payload) });
      return payload;
    });
    app.addHook('onResponse', async (request: FastifyRequest, reply: FastifyReply) => {
      const route = request.routeOptions.url ?? 'unmatched';
      this.requests.inc({ method: request.method, route, status: reply.statusCode });
      this.durations.observe({ method: request.method, route }, reply.elapsedTime / 1000);
    });
  }

  /** The same store, counting every event appended through it. */
  countAppends(store: EventStore): EventStore {
    const appended = this.appended;
    return new Proxy(store, {
      get(target, key) {
        if (key === 'appendToStream') {
          const append: EventStore['appendToStream'] = async (streamId, events, options) => {
            const result = await target.appendToStream(streamId, events, options);
            appended.inc(events.length);
            return result;
          };
          return append;
        }
        const value = Reflect.get(target, key, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  }

  /** How many live-update streams are open, read at each scrape. */
  followLiveStreams(count: () => number) {
    this.readers.push(async () => this.liveStreams.set(count()));
  }

  /** Projections' and reactors' lag and failures, one query per family at each scrape. */
  followCheckpoints(pool: pg.Pool, tables: CheckpointTables) {
    const read = async (kind: 'projection' | 'reactor', table: string) => {
      const gauges = this.lag[kind];
      for (const gauge of Object.values(gauges)) gauge.reset();
      // Unknown (NaN) unless it is read below.
      if (kind === 'reactor') this.mailBacklog.set(Number.NaN);
      let lags: CheckpointLag[];
      try {
        lags = tables.eventsElsewhere
          ? await lagThroughStore(pool, table, tables.eventsElsewhere)
          : await lagInDatabase(pool, table);
      } catch {
        this.readFailures.inc({ family: kind });
        return;
      }
      for (const { name, stopped, waiting, seconds } of lags) {
        const labels = { [kind]: name };
        gauges.stopped.set(labels, stopped ? 1 : 0);
        gauges.events.set(labels, waiting);
        gauges.seconds.set(labels, seconds);
        if (kind === 'reactor' && name === tables.mailReactor) this.mailBacklog.set(waiting);
      }
    };
    this.readers.push(
      () => read('projection', tables.projections),
      () => read('reactor', tables.reactors),
    );
  }

  /** The figures as Prometheus reads them, those read at scrape time read now. */
  async scrape(): Promise<string> {
    // Scrapes at the same moment share one reading: the gauges are reset and set once.
    this.scraping ??= Promise.all(this.readers.map((reader) => reader()))
      .then(() => this.registry.metrics())
      .finally(() => {
        this.scraping = undefined;
      });
    return this.scraping;
  }

  /** Whether `authorization` carries this product's metrics token. */
  admits(authorization: string | undefined): boolean {
    const presented = /^bearer +(\S+) *$/i.exec(authorization ?? '')?.[1];
    return presented !== undefined && sameToken(presented, this.token);
  }
}

/**
 * Each checkpoint's handled events after it (among the first LAG_CAP events after it), and the age
 * of the oldest of them, in one query over `es.events`.
 */
async function lagInDatabase(pool: pg.Pool, table: string): Promise<CheckpointLag[]> {
  const result = await pool.query<{ name: string; stopped: boolean; waiting: string; seconds: number }>(
    `select c.name, c.failure is not null as stopped, w.waiting,
       coalesce(extract(epoch from greatest(now() - w.oldest, interval '0'))::float8, 0) as seconds
       from ${table} c
       cross join lateral (
         select count(*) filter (where e.event_type = any(c.handles)) as waiting,
                min(e.recorded_at) filter (where e.event_type = any(c.handles)) as oldest
           from (select event_type, recorded_at from es.events
                  where (transaction_id, global_position) > (c.commit_position::text::xid8, c.prepare_position)
                  order by transaction_id, global_position limit ${LAG_CAP}) e
       ) w
      order by c.name`,
  );
  return result.rows.map((row) => ({ ...row, waiting: Number(row.waiting) }));
}

/** The same through the store (EventStoreDB): one read of `$all` after each checkpoint. */
async function lagThroughStore(pool: pg.Pool, table: string, store: EventStore): Promise<CheckpointLag[]> {
  const checkpoints = await pool.query<{
    name: string;
    handles: string[];
    commit_position: string;
    prepare_position: string;
    stopped: boolean;
  }>(`select name, handles, commit_position, prepare_position, failure is not null as stopped from ${table}`);
  return Promise.all(
    checkpoints.rows.map(async (row) => {
      const from = { commit: BigInt(row.commit_position), prepare: BigInt(row.prepare_position) };
      const after = await store.readAll({ from, limit: STORE_LAG_CAP });
      const waiting = after.filter((event) => row.handles.includes(event.type));
      const oldest = waiting[0] && Date.parse(waiting[0].metadata.recordedAt);
      const seconds = oldest ? Math.max(0, (Date.now() - oldest) / 1000) : 0;
      return { name: row.name, stopped: row.stopped, waiting: waiting.length, seconds };
    }),
  );
}

/**
 * GET /metrics for a monitoring system: 404 unless the product was started with METRICS_TOKEN
 * (an operator turns it on knowingly), 401 without that token as a bearer token; no session opens it.
 */
export async function metricsRoute(app: FastifyInstance, { metrics }: { metrics?: Metrics }) {
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (!metrics) throw new HttpError(404, 'not_found', `No route ${request.method} ${request.url}`);
    if (!metrics.admits(request.headers.authorization)) {
      reply.header('www-authenticate', 'Bearer realm="metrics"');
      throw new HttpError(
        401,
        'unauthenticated',
        'The metrics need the token set in METRICS_TOKEN, as a bearer token.',
      );
    }
    return reply.type(metrics.registry.contentType).send(await metrics.scrape());
  });
}
