import { type ActivityEntryView, activityAnswer, activityQuery, readsAsAdmin } from '@agency/contracts';
import { addDays } from '@agency/domain';
import { comparePositions, type EventStore, forbidden, type Position, type RecordedEvent } from '@agency/platform';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type pg from 'pg';
import { z } from 'zod';
import { requireSignIn } from '../signed-in';
import { agencyInstant, COMMIT_SLACK_MS } from './as-of';
import { streamViews } from './recorded-events';

const BATCH = 1000;

/** An event of the period: what the activity log needs to find it in its stream and group it. */
type Found = Pick<RecordedEvent, 'id' | 'streamId' | 'revision' | 'position'>;

/**
 * The events recorded in [start, end), optionally by one user, in `$all` order, from a store this
 * database does not hold (EventStoreDB): `$all` read from the start up to a little past the end.
 */
async function scannedFromStart(store: EventStore, start: Date, end: Date, userId: string | undefined) {
  const found: Found[] = [];
  let from: Position | undefined;
  for (let done = false; !done; ) {
    const events = await store.readAll({ from, limit: BATCH });
    for (const event of events) {
      const recorded = Date.parse(event.metadata.recordedAt);
      if (recorded >= end.getTime() + COMMIT_SLACK_MS) done = true;
      if (recorded < start.getTime() || recorded >= end.getTime()) continue;
      if (!userId || event.metadata.userId === userId) found.push(event);
    }
    if (events.length < BATCH) done = true;
    from = events.at(-1)?.position;
  }
  return found;
}

/**
 * The same from this database's `es.events`, by its index on the time each event was recorded: one
 * page of the period after another, never the log before it. Only ids and places are read here;
 * the events themselves are read from their streams through the store (decrypted, upcast).
 */
export async function foundByTime(db: pg.Pool, start: Date, end: Date, userId: string | undefined, pageSize = BATCH) {
  const found: Found[] = [];
  // The recorded time as text to page on: microseconds, where a JavaScript date keeps milliseconds.
  let after: { at: string; global: string } | undefined;
  for (;;) {
    const page = await db.query<{
      event_id: string;
      stream_id: string;
      stream_revision: string;
      commit: string;
      global_position: string;
      at: string;
      user_id: string | null;
    }>(
      `select event_id, stream_id, stream_revision, transaction_id::text as commit, global_position,
              recorded_at::text as at, metadata->>'userId' as user_id
         from es.events
        where recorded_at >= $1 and recorded_at < $2
          and ($3::timestamptz is null or (recorded_at, global_position) > ($3, $4::bigint))
        order by recorded_at, global_position limit $5`,
      [start, end, after?.at ?? null, after?.global ?? null, pageSize],
    );
    for (const row of page.rows) {
      if (userId && row.user_id !== userId) continue;
      found.push({
        id: row.event_id,
        streamId: row.stream_id,
        revision: Number(row.stream_revision),
        position: { commit: BigInt(row.commit), prepare: BigInt(row.global_position) },
      });
    }
    const last = page.rows.at(-1);
    if (!last || page.rows.length < pageSize) break;
    after = { at: last.at, global: last.global_position };
  }
  return found.sort((a, b) => comparePositions(a.position, b.position));
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

/** The events recorded in [start, end), optionally by one user, in `$all` order. */
async function eventsRecordedIn(db: pg.Pool, store: EventStore, start: Date, end: Date, userId: string | undefined) {
  return (await eventsAreHere(db, store))
    ? foundByTime(db, start, end, userId)
    : scannedFromStart(store, start, end, userId);
}

/**
 * The commands of a period, each its events grouped by command id: who, when, what in words (the
 * stream's describers, given each stream from its start) and on which streams, oldest first.
 */
export async function activityIn(
  db: pg.Pool,
  store: EventStore,
  timeZone: string,
  period: { from: string; to: string; userId?: string },
): Promise<ActivityEntryView[]> {
  const start = agencyInstant(`${period.from}T00:00`, timeZone);
  const end = agencyInstant(`${addDays(period.to, 1)}T00:00`, timeZone);
  const events = await eventsRecordedIn(db, store, start, end, period.userId);
  const wanted = new Set(events.map((event) => event.id));
  const streams = [...new Set(events.map((event) => event.streamId))];
  const views = new Map<string, Awaited<ReturnType<typeof streamViews>>[number]>();
  for (const streamId of streams) {
    const stream = await store.readStream(streamId);
    for (const view of await streamViews(db, timeZone, stream, (event) => wanted.has(event.id))) {
      views.set(`${view.streamId}#${view.revision}`, view);
    }
  }
  const commands = new Map<string, ActivityEntryView>();
  for (const event of events) {
    const view = views.get(`${event.streamId}#${event.revision}`);
    if (!view) continue;
    const entry = commands.get(view.commandId);
    if (!entry) {
      commands.set(view.commandId, {
        commandId: view.commandId,
        recordedAt: view.recordedAt,
        when: view.when,
        who: view.who,
        streams: [view.streamId],
        what: [view.what],
      });
      continue;
    }
    if (!entry.streams.includes(view.streamId)) entry.streams.push(view.streamId);
    entry.what.push(view.what);
  }
  return [...commands.values()].sort((a, b) => a.recordedAt.localeCompare(b.recordedAt));
}

/** A CSV field, always quoted; a leading formula character is defused for spreadsheets. */
const csvField = (value: string) => `"${(/^[=+\-@\t\r]/.test(value) ? `'${value}` : value).replaceAll('"', '""')}"`;

export function activityCsv(commands: ActivityEntryView[]): string {
  const rows = [
    ['When', 'Who', 'Role', 'Entity', 'What', 'Command'],
    ...commands.map((entry) => [
      entry.when,
      entry.who.name,
      entry.who.role,
      entry.streams.join(' '),
      entry.what.join('; '),
      entry.commandId,
    ]),
  ];
  return `${rows.map((row) => row.map(csvField).join(',')).join('\r\n')}\r\n`;
}

/**
 * `GET /api/activity?from&to[&userId][&format=csv]` (admins and auditors): who did what, when,
 * on which entity, read from the event store itself; `format=csv` answers the same as CSV.
 */
export async function activityQueries(
  fastify: FastifyInstance,
  { db, store, timeZone }: { db: pg.Pool; store: EventStore; timeZone: string },
) {
  requireSignIn(fastify);
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/api/activity',
    // format=csv answers the same rows as CSV text.
    { schema: { querystring: activityQuery, response: { 200: activityAnswer.or(z.string()) } } },
    async (request, reply) => {
      if (!readsAsAdmin(request.signedIn.role)) throw forbidden('The activity log is for admins and auditors.');
      const { from, to, userId, format } = request.query;
      const commands = await activityIn(db, store, timeZone, { from, to, userId });
      if (format === 'csv') {
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="activity-${from}-to-${to}.csv"`)
          .header('cache-control', 'private, no-store')
          .send(activityCsv(commands));
      }
      const users = await db.query<{ id: string; name: string; role: string }>(
        'select id, name, role from users order by lower(name), id',
      );
      return { from, to, commands, users: users.rows };
    },
  );
}
