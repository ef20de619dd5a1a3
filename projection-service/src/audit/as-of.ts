import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import { readsEveryTutor, type SessionUser } from '@agency/contracts';
import { invoice, timesheet, tutor } from '@agency/domain';
import { comparePositions, type EventStore, forbidden, type Position, type RecordedEvent } from '@agency/platform';
import type { RouteOptions } from 'fastify';
import type pg from 'pg';
import { quoteIdent } from '../projection-runner';
import { clientsProjection } from '../read-models/clients/projection';
import { engagementsProjection } from '../read-models/engagements/projection';
import { invoicesProjection } from '../read-models/invoices/projection';
import { lessonsProjection } from '../read-models/lessons/projection';
import { migrations } from '../read-models/migrations';
import { handlerFor, type Projection } from '../read-models/projection';
import { tutorsProjection } from '../read-models/tutors/projection';
import { agencyTime } from './recorded-events';

/**
 * The views that can be seen as of a past moment (`?asOf=`), each with the projections its query
 * reads: only those are replayed.
 */
export const AS_OF_VIEWS: Record<string, Projection[]> = {
  '/api/reports/invoiceStatus': [tutorsProjection, lessonsProjection, invoicesProjection],
  '/api/invoices': [tutorsProjection, invoicesProjection],
  '/api/invoices/': [tutorsProjection, invoicesProjection],
  '/api/lessons': [tutorsProjection, clientsProjection, lessonsProjection],
  '/api/tutors/engagement/:tutorId/:engagementId': [tutorsProjection, clientsProjection, engagementsProjection],
};

/**
 * Views whose replay needs only a few streams, named from the request's query: their events are
 * read stream by stream (in `$all` order once merged) instead of the whole of `$all`, so the cost
 * follows the month asked for, not the size of the store. A month's lessons are all on its
 * timesheet streams and its invoices on its invoice streams; tutors are never removed from the
 * live table, so its ids name every tutor who could have existed then.
 */
type StreamsOf = (query: Record<string, unknown>, pool: pg.Pool) => Promise<string[]>;

const monthOfQuery = (query: Record<string, unknown>) =>
  `${String(query.year)}-${String(query.month).padStart(2, '0')}`;

const everyTutor = async (pool: pg.Pool) =>
  (await pool.query<{ id: string }>('select id from tutors')).rows.map((row) => row.id);

/** The invoices list: every tutor's stream and the invoice streams of the month asked (or of each month of the year). */
const invoiceListStreams: StreamsOf = async (query, pool) => {
  const months =
    query.month === undefined
      ? Array.from({ length: 12 }, (_, m) => monthOfQuery({ year: query.year, month: m + 1 }))
      : [monthOfQuery(query)];
  return (await everyTutor(pool)).flatMap((id) => [
    tutor.tutorStream(id),
    ...months.map((month) => invoice.invoiceStream(id, month)),
  ]);
};

export const AS_OF_STREAMS: Record<string, StreamsOf> = {
  '/api/reports/invoiceStatus': async (query, pool) => {
    const month = monthOfQuery(query);
    return (await everyTutor(pool)).flatMap((id) => [
      tutor.tutorStream(id),
      timesheet.timesheetStream(id, month),
      invoice.invoiceStream(id, month),
    ]);
  },
  '/api/invoices': invoiceListStreams,
  '/api/invoices/': invoiceListStreams,
};

/** Events read from `$all` per round trip while replaying. */
const BATCH = 1000;
/**
 * `$all` is in commit order and an event's recorded time is taken inside its transaction, so a
 * later position may carry a slightly earlier time; past this margin no earlier one can follow.
 */
export const COMMIT_SLACK_MS = 5 * 60_000;

/** `YYYY-MM-DDTHH:mm[:ss]` in `timeZone` as an instant (the first one, in a clock change's repeated hour). */
export function agencyInstant(local: string, timeZone: string): Date {
  const wall = Date.parse(`${local.length === 16 ? `${local}:00` : local}Z`);
  const offsetAt = (instant: number) =>
    Date.parse(`${agencyTime(new Date(instant), timeZone).replace(' ', 'T')}Z`) - instant;
  const first = wall - offsetAt(wall);
  return new Date(wall - offsetAt(first));
}

/** The connection a past view's query runs on, for the duration of its handler. */
const pastConnection = new AsyncLocalStorage<pg.ClientBase>();

/**
 * The pool the query plugins are given: its `query` runs on the past view's connection (search
 * path: the scratch schema) while a handler answers as of a past moment, on the pool otherwise.
 * So a view's query code is the very same for now and for the past.
 */
export function pastAwarePool(pool: pg.Pool): pg.Pool {
  return new Proxy(pool, {
    get(target, property) {
      const connection = property === 'query' ? pastConnection.getStore() : undefined;
      const value = Reflect.get(connection ?? target, property, connection ?? target);
      return typeof value === 'function' ? value.bind(connection ?? target) : value;
    },
  });
}

/**
 * Builds the tables of `projections` in a scratch schema inside one transaction, applies to them
 * (with the same handlers the runner uses) every event recorded up to `asOf`, runs `work` with
 * its queries on that schema, and rolls everything back: nothing of the past is kept.
 */
export async function asOfView<T>(
  pool: pg.Pool,
  store: EventStore,
  projections: Projection[],
  asOf: Date,
  work: () => Promise<T>,
  /** Only these streams' events are replayed (their union in `$all` order); absent: all of `$all`. */
  streams?: string[],
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    const schema = `read_as_of_${randomBytes(6).toString('hex')}`;
    await client.query(`create schema ${quoteIdent(schema)}`);
    await client.query(`set local search_path to ${quoteIdent(schema)}`);
    const wanted = new Set(projections.flatMap((projection) => projection.migrations ?? []));
    for (const migration of migrations) if (wanted.has(migration.name)) await client.query(migration.sql);
    const until = asOf.getTime();
    // As the runner applies a batch: each projection in turn, set-based where it can be.
    const apply = async (events: RecordedEvent[]) => {
      for (const projection of projections) {
        if (projection.applyBatch) await projection.applyBatch(client, events);
        else for (const event of events) await handlerFor(projection, event.type)?.(client, event);
      }
    };
    if (streams) {
      const events = (await Promise.all(streams.map((stream) => store.readStream(stream))))
        .flat()
        .filter((event) => Date.parse(event.metadata.recordedAt) <= until)
        .sort((a, b) => comparePositions(a.position, b.position));
      for (let at = 0; at < events.length; at += BATCH) await apply(events.slice(at, at + BATCH));
    } else {
      let from: Position | undefined;
      for (let done = false; !done; ) {
        const events = await store.readAll({ from, limit: BATCH });
        const recorded = events.filter((event) => Date.parse(event.metadata.recordedAt) <= until);
        if (events.some((event) => Date.parse(event.metadata.recordedAt) > until + COMMIT_SLACK_MS)) done = true;
        await apply(recorded);
        if (events.length < BATCH) done = true;
        from = events.at(-1)?.position;
      }
    }
    return await pastConnection.run(client, work);
  } finally {
    await client.query('rollback').catch(() => {});
    client.release();
  }
}

type AsOfOptions = { pool: pg.Pool; store: EventStore; timeZone: string };

/**
 * An `onRoute` hook: each view of `AS_OF_VIEWS` answers, when asked `?asOf=`, from a replay of the
 * events recorded up to that moment (the office only: a tutor's views are of now).
 */
export function asOfRoutes({ pool, store, timeZone }: AsOfOptions) {
  return (route: RouteOptions) => {
    const projections = route.method === 'GET' ? AS_OF_VIEWS[route.url] : undefined;
    if (!projections) return;
    const handler = route.handler;
    route.handler = async function asOfHandler(request, reply) {
      const asOf = (request.query as { asOf?: string } | undefined)?.asOf;
      if (!asOf) return handler.call(this, request, reply);
      const user = (request as { signedIn?: SessionUser }).signedIn;
      if (!user || !readsEveryTutor(user.role)) throw forbidden('Views as of a past moment are for the office.');
      const streamsOf = AS_OF_STREAMS[route.url];
      const streams = streamsOf ? await streamsOf(request.query as Record<string, unknown>, pool) : undefined;
      return asOfView(
        pool,
        store,
        projections,
        agencyInstant(asOf, timeZone),
        async () => handler.call(this, request, reply),
        streams,
      );
    };
  };
}
