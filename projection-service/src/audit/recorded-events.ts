import type { RecordedEventView } from '@agency/contracts';
import { describeStream } from '@agency/domain/history/event-description';
import type { RecordedEvent } from '@agency/platform';
import type pg from 'pg';

/** An instant in the agency's time zone as people read it: `2026-10-15 14:03:22`. */
export function agencyTime(instant: string | Date, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(new Date(instant));
  const part = (type: string) => parts.find((found) => found.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')} ${part('hour')}:${part('minute')}:${part('second')}`;
}

/** The names of the users who recorded these events, from the users read model (an unknown id keeps its id). */
export async function authorNames(db: pg.Pool, userIds: readonly string[]): Promise<Map<string, string>> {
  const ids = [...new Set(userIds)];
  const found = await db.query<{ id: string; name: string }>('select id, name from users where id = any($1)', [ids]);
  return new Map(found.rows.map((row) => [row.id, row.name]));
}

/**
 * Events of one stream, in its order, as an auditor reads them. The words of each event come from
 * the whole stream read so far (`describeStream`), so pass the stream from its start; `keep`
 * chooses which of them to answer with.
 */
export async function streamViews(
  db: pg.Pool,
  timeZone: string,
  stream: readonly RecordedEvent[],
  keep: (event: RecordedEvent) => boolean = () => true,
): Promise<RecordedEventView[]> {
  const words = describeStream(stream);
  const kept = stream
    .map((event, index) => ({ event, what: words[index] ?? event.type }))
    .filter(({ event }) => keep(event));
  const names = await authorNames(
    db,
    kept.map(({ event }) => event.metadata.userId),
  );
  return kept.map(({ event, what }) => ({
    streamId: event.streamId,
    revision: event.revision,
    type: event.type,
    recordedAt: new Date(event.metadata.recordedAt).toISOString(),
    when: agencyTime(event.metadata.recordedAt, timeZone),
    who: {
      userId: event.metadata.userId,
      name: names.get(event.metadata.userId) ?? event.metadata.userId,
      role: event.metadata.role,
    },
    what,
    commandId: event.metadata.commandId,
    correlationId: event.metadata.correlationId,
  }));
}
