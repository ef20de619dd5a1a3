import { Readable } from 'node:stream';
import {
  type ActivityEntryView,
  activityAnswer,
  activityQuery,
  type CsvValue,
  csvRow,
  nonJsonAnswer,
  PAGE_SIZE,
  readsAsAdmin,
} from '@agency/contracts';
import { addDays } from '@agency/domain';
import { type EventStore, forbidden, HttpError, type Position } from '@agency/platform';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type pg from 'pg';
import { decodeCursor, encodeCursor } from '../read-models/paging';
import { requireSignIn } from '../signed-in';
import { agencyInstant, COMMIT_SLACK_MS } from './as-of';
import { streamViews } from './recorded-events';
import { subjectsOf } from './stream-subjects';

/** Rows of the log read at a time. */
const BATCH = 500;
/**
 * How long after a page's last event the log is read on for more events of the page's commands,
 * so that a page ends between commands, not inside one: a command's events (one append per
 * stream it changes) are recorded within moments of each other, and those of other commands
 * recorded in between join the page with them. Events of one command recorded further apart than
 * this may fall on two pages (the same command id on both).
 */
const LOOK_AHEAD_MS = 60_000;
/** A page stops here even inside a command: what one request holds in memory stays bounded. */
const PAGE_EVENTS_AT_MOST = 5_000;

/** A place in the log: the recorded time (microseconds) and global position, or a `$all` position. */
type LogKey = { kind: 'time'; micros: string; global: string } | { kind: 'all'; position: Position };

/** One event of the period: where it is in the log, and what the activity log needs to find and group it. */
type LogRow = { key: LogKey; id: string; streamId: string; revision: number; commandId: string; recordedMs: number };

/** The period's events in the log's order, a batch at a time after a place (undefined: from the start). */
type LogSource = {
  kind: LogKey['kind'];
  read(after: LogKey | undefined, limit: number): Promise<{ rows: LogRow[]; next: LogKey | undefined; done: boolean }>;
};

type Period = { start: Date; end: Date; userId: string | undefined };

/**
 * One batch of the period's events from this database's `es.events`, by its index on the time each
 * event was recorded (`events_recorded_at`): from the place after `$3, $4` (the period's start on
 * the first page), never the log before it. The recorded time as microseconds, where a JavaScript
 * date keeps milliseconds.
 */
export const EVENTS_BY_TIME = `select event_id, stream_id, stream_revision, global_position::text as global,
       (extract(epoch from recorded_at) * 1000000)::bigint::text as micros,
       metadata->>'commandId' as command_id
  from es.events
 where (recorded_at, global_position) > (timestamptz 'epoch' + $3::bigint * interval '1 microsecond', $4::bigint)
   and recorded_at >= $1 and recorded_at < $2
   and ($5::text is null or metadata->>'userId' = $5)
 order by recorded_at, global_position
 limit $6`;

function byTime(db: pg.Pool, { start, end, userId }: Period): LogSource {
  return {
    kind: 'time',
    read: async (after, limit) => {
      // Global positions start at 1: (start, 0) is before the period's first event.
      const from = after?.kind === 'time' ? after : { micros: String(start.getTime() * 1000), global: '0' };
      const page = await db.query<{
        event_id: string;
        stream_id: string;
        stream_revision: string;
        global: string;
        micros: string;
        command_id: string | null;
      }>(EVENTS_BY_TIME, [start, end, from.micros, from.global, userId ?? null, limit]);
      const rows = page.rows.map(
        (row): LogRow => ({
          key: { kind: 'time', micros: row.micros, global: row.global },
          id: row.event_id,
          streamId: row.stream_id,
          revision: Number(row.stream_revision),
          commandId: row.command_id ?? row.event_id,
          recordedMs: Number(BigInt(row.micros) / 1000n),
        }),
      );
      return { rows, next: rows.at(-1)?.key ?? after, done: rows.length < limit };
    },
  };
}

/**
 * The same from a store this database does not hold (EventStoreDB), which has no index by time:
 * `$all` from the cursor (the first page: from the start of the log) up to a little past the
 * period's end, keeping the period's events.
 */
function scanOfAll(store: EventStore, { start, end, userId }: Period): LogSource {
  return {
    kind: 'all',
    read: async (after, limit) => {
      const events = await store.readAll({ from: after?.kind === 'all' ? after.position : undefined, limit });
      const rows: LogRow[] = [];
      let done = events.length < limit;
      for (const event of events) {
        const recorded = Date.parse(event.metadata.recordedAt);
        if (recorded >= end.getTime() + COMMIT_SLACK_MS) done = true;
        if (recorded < start.getTime() || recorded >= end.getTime()) continue;
        if (userId && event.metadata.userId !== userId) continue;
        rows.push({
          key: { kind: 'all', position: event.position },
          id: event.id,
          streamId: event.streamId,
          revision: event.revision,
          commandId: event.metadata.commandId ?? event.id,
          recordedMs: recorded,
        });
      }
      const last = events.at(-1);
      return { rows, next: last ? { kind: 'all', position: last.position } : after, done };
    },
  };
}

/**
 * Whether the store is this database's own `es.events`: its last event is a row there. The store of
 * another server (EventStoreDB) has positions of its own that name no such row, even when an old
 * `es.events` is still in the database. Known once it is so.
 */
const storesHere = new WeakMap<EventStore, true>();
async function eventsAreHere(db: pg.Pool, store: EventStore): Promise<boolean> {
  if (storesHere.has(store)) return true;
  const table = await db.query("select to_regclass('es.events') as events");
  if (!table.rows[0]?.events) return false;
  const head = await store.head();
  const row = await db.query(
    'select 1 from es.events where transaction_id = $1::text::xid8 and global_position = $2::bigint',
    [head.commit.toString(), head.prepare.toString()],
  );
  if (row.rowCount === 0) return false;
  storesHere.set(store, true);
  return true;
}

const encodeKey = (key: LogKey) =>
  key.kind === 'time'
    ? encodeCursor(['t', key.micros, key.global])
    : encodeCursor(['a', key.position.commit.toString(), key.position.prepare.toString()]);

/** The place a cursor names, for this source (a cursor of the other kind of store, or not one at all, is a 400). */
function decodeKey(cursor: string, kind: LogKey['kind']): LogKey {
  const digits = /^\d{1,20}$/;
  const [tag, first, second] = decodeCursor(
    cursor,
    3,
    ([tag, first, second]) =>
      tag === (kind === 'time' ? 't' : 'a') && digits.test(first ?? '') && digits.test(second ?? ''),
  ) as [string, string, string];
  return tag === 't'
    ? { kind: 'time', micros: first, global: second }
    : { kind: 'all', position: { commit: BigInt(first), prepare: BigInt(second) } };
}

/**
 * The next page: the commands whose first event of the period follows `after`, `limit` of them
 * (more when others' events are recorded between a command's own), each with all its events of
 * the period; `next` is the place of the page's last event (undefined: the period has no more).
 */
async function pageOfCommands(source: LogSource, after: LogKey | undefined, limit: number) {
  const commands = new Map<string, LogRow[]>();
  let events = 0;
  let last = after;
  let lastMs = 0;
  // Once the page has its commands: the rows read past it, and until when one of its own is waited for.
  let pending: LogRow[] = [];
  let waitUntil: number | undefined;
  const add = (row: LogRow) => {
    const rows = commands.get(row.commandId);
    if (rows) rows.push(row);
    else commands.set(row.commandId, [row]);
    events++;
    last = row.key;
    lastMs = row.recordedMs;
  };
  for (let from = after; ; ) {
    const batch = await source.read(from, BATCH);
    for (const row of batch.rows) {
      if (events >= PAGE_EVENTS_AT_MOST) return { commands, next: last };
      if (waitUntil === undefined) {
        if (commands.size < limit || commands.has(row.commandId)) {
          add(row);
          continue;
        }
        waitUntil = lastMs + LOOK_AHEAD_MS;
      }
      if (commands.has(row.commandId)) {
        // A later event of a command of the page: what was recorded in between joins the page too.
        for (const between of pending) add(between);
        pending = [];
        add(row);
        waitUntil = lastMs + LOOK_AHEAD_MS;
        continue;
      }
      if (row.recordedMs > waitUntil || pending.length >= PAGE_EVENTS_AT_MOST) return { commands, next: last };
      pending.push(row);
    }
    if (batch.done) return { commands, next: pending.length > 0 ? last : undefined };
    from = batch.next;
  }
}

/** The commands of a page in words: who, when, what (the stream's describers, given each stream from its start), where. */
async function entriesOf(
  db: pg.Pool,
  store: EventStore,
  timeZone: string,
  commands: Map<string, LogRow[]>,
): Promise<ActivityEntryView[]> {
  const rows = [...commands.values()].flat();
  const wanted = new Set(rows.map((row) => row.id));
  const views = new Map<string, Awaited<ReturnType<typeof streamViews>>[number]>();
  for (const streamId of new Set(rows.map((row) => row.streamId))) {
    const stream = await store.readStream(streamId);
    for (const view of await streamViews(db, timeZone, stream, (event) => wanted.has(event.id))) {
      views.set(`${view.streamId}#${view.revision}`, view);
    }
  }
  // What each stream is about, named from the read models: one query for the whole page.
  const subjects = await subjectsOf(db, [...new Set(rows.map((row) => row.streamId))]);
  const entries: ActivityEntryView[] = [];
  for (const [commandId, events] of commands) {
    let entry: ActivityEntryView | undefined;
    for (const event of events) {
      const view = views.get(`${event.streamId}#${event.revision}`);
      if (!view) continue;
      if (!entry) {
        entry = {
          commandId,
          recordedAt: view.recordedAt,
          when: view.when,
          who: view.who,
          streams: [],
          subjects: [],
          what: [],
        };
        entries.push(entry);
      }
      if (!entry.streams.includes(view.streamId)) {
        entry.streams.push(view.streamId);
        const subject = subjects.get(view.streamId);
        if (subject) entry.subjects.push(subject);
      }
      entry.what.push(view.what);
    }
  }
  return entries;
}

export type ActivityPeriod = { from: string; to: string; userId?: string };

async function sourceFor(db: pg.Pool, store: EventStore, timeZone: string, period: ActivityPeriod) {
  const bounds: Period = {
    start: agencyInstant(`${period.from}T00:00`, timeZone),
    end: agencyInstant(`${addDays(period.to, 1)}T00:00`, timeZone),
    userId: period.userId,
  };
  return (await eventsAreHere(db, store)) ? byTime(db, bounds) : scanOfAll(store, bounds);
}

/**
 * One page of the commands of a period (agency dates, both included), oldest first: each its
 * events grouped by command id, in words. `nextCursor` asks for the page after it (null: none).
 */
export async function activityPage(
  db: pg.Pool,
  store: EventStore,
  timeZone: string,
  period: ActivityPeriod,
  page: { limit: number; cursor?: string },
): Promise<{ commands: ActivityEntryView[]; nextCursor: string | null }> {
  const source = await sourceFor(db, store, timeZone, period);
  const after = page.cursor === undefined ? undefined : decodeKey(page.cursor, source.kind);
  const { commands, next } = await pageOfCommands(source, after, page.limit);
  return { commands: await entriesOf(db, store, timeZone, commands), nextCursor: next ? encodeKey(next) : null };
}

/** Every page of a period in turn, each read only when the one before has been used. */
export async function* activityPages(
  db: pg.Pool,
  store: EventStore,
  timeZone: string,
  period: ActivityPeriod,
  limit: number = PAGE_SIZE.activity.max,
): AsyncGenerator<ActivityEntryView[]> {
  const source = await sourceFor(db, store, timeZone, period);
  let after: LogKey | undefined;
  do {
    const { commands, next } = await pageOfCommands(source, after, limit);
    yield await entriesOf(db, store, timeZone, commands);
    after = next;
  } while (after);
}

const ACTIVITY_CSV_HEADER = ['When', 'Who', 'Role', 'Entity', 'What', 'Command'];

export const activityCsvRow = (entry: ActivityEntryView): CsvValue[] => [
  entry.when,
  entry.who.name,
  entry.who.role,
  entry.streams.join(' '),
  entry.what.join('; '),
  entry.commandId,
];

/** The CSV of a period, written page by page as the pages are read (docs/csv.md): never the whole file in memory. */
async function* activityCsv(pages: AsyncIterable<ActivityEntryView[]>): AsyncGenerator<string> {
  yield csvRow(ACTIVITY_CSV_HEADER);
  for await (const commands of pages) {
    if (commands.length > 0) yield commands.map((entry) => csvRow(activityCsvRow(entry))).join('');
  }
}

/** Text written to the client as it is made (a stream has no place in the route's JSON answer type). */
function sendCsv(reply: FastifyReply, filename: string, text: AsyncIterable<string>) {
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${filename}"`)
    .header('cache-control', 'private, no-store')
    .send(Readable.from(text));
}

/**
 * `GET /api/activity?from&to[&userId][&limit&cursor][&format=csv]` (admins and auditors): who did
 * what, when, on which entity, read from the event store itself, a page at a time; `format=csv`
 * answers the whole period (docs/limits.md, "Activity log") as CSV.
 */
export async function activityQueries(
  fastify: FastifyInstance,
  { db, store, timeZone }: { db: pg.Pool; store: EventStore; timeZone: string },
) {
  requireSignIn(fastify);
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/api/activity',
    {
      schema: {
        querystring: activityQuery,
        response: {
          200: {
            description: 'A page of the commands of the period; with format=csv, all of them as CSV',
            // The CSV first: the handler's answer is typed by the first, and a stream is no JSON.
            content: {
              ...nonJsonAnswer('text/csv', 'Every command of the period, one row each').content,
              'application/json': { schema: activityAnswer },
            },
          },
        },
      },
    },
    async (request, reply) => {
      if (!readsAsAdmin(request.signedIn.role)) throw forbidden('The activity log is for admins and auditors.');
      const { from, to, userId, format, limit, cursor } = request.query;
      if (format === 'csv') {
        if (cursor !== undefined) {
          throw new HttpError(400, 'invalid_input', 'The CSV is always the whole period: ask without a cursor.', {
            cursor: 'Not with format=csv',
          });
        }
        return sendCsv(
          reply,
          `activity-${from}-to-${to}.csv`,
          activityCsv(activityPages(db, store, timeZone, { from, to, userId })),
        );
      }
      const [page, users] = await Promise.all([
        activityPage(db, store, timeZone, { from, to, userId }, { limit, cursor }),
        db.query<{ id: string; name: string; role: string }>(
          'select id, name, role from users order by lower(name), id',
        ),
      ]);
      return { from, to, commands: page.commands, users: users.rows, nextCursor: page.nextCursor };
    },
  );
}
