import { type ActivityEntryView, activityAnswer, activityQuery, readsAsAdmin } from '@agency/contracts';
import { addDays } from '@agency/domain';
import { type EventStore, forbidden, type Position, type RecordedEvent } from '@agency/platform';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type pg from 'pg';
import { z } from 'zod';
import { requireSignIn } from '../signed-in';
import { agencyInstant, COMMIT_SLACK_MS } from './as-of';
import { streamViews } from './recorded-events';

const BATCH = 1000;

/** The events recorded in [start, end), optionally by one user, in `$all` order. */
async function eventsRecordedIn(store: EventStore, start: Date, end: Date, userId: string | undefined) {
  const found: RecordedEvent[] = [];
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
  const events = await eventsRecordedIn(store, start, end, period.userId);
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
