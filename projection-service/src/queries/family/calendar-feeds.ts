import { createHash } from 'node:crypto';
import { nonJsonAnswer } from '@agency/contracts';
import { nowLocalIn } from '@agency/domain';
import { notFound } from '@agency/platform';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type pg from 'pg';
import { z } from 'zod';
import type { AgencyToday } from '../../read-models/clients/queries';

/** A local date-time `YYYY-MM-DDTHH:mm` as iCalendar's floating local time, `YYYYMMDDTHHmmss`. */
const icalLocal = (dateTime: string) => `${dateTime.replace(/[-:]/g, '').slice(0, 13)}00`;
/** `minutes` after a local date-time, still local (read as UTC only to add). */
const plusMinutes = (dateTime: string, minutes: number) =>
  new Date(Date.parse(`${dateTime.slice(0, 16)}:00Z`) + minutes * 60_000).toISOString().slice(0, 16);
/** Text as iCalendar takes it: backslash, semicolon, comma and line breaks escaped. */
const icalText = (text: string) => text.replace(/[\\;,]/g, (c) => `\\${c}`).replace(/\r?\n/g, '\\n');

type FeedEvent = {
  uid: string;
  start: string;
  minutes: number;
  summary: string;
  location: string;
  cancelled: boolean;
};

/** A calendar of `events`, lines ended by CRLF as RFC 5545 asks. */
export function calendar(name: string, events: FeedEvent[], stamp: Date): string {
  const dtstamp = `${stamp.toISOString().replace(/[-:]/g, '').slice(0, 15)}Z`;
  const lines = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//Tutoring Agency//Calendar feed//EN',
    'CALSCALE:GREGORIAN',
    `X-WR-CALNAME:${icalText(name)}`,
    ...events.flatMap((event) => [
      'BEGIN:VEVENT',
      `UID:${event.uid}@agency`,
      `DTSTAMP:${dtstamp}`,
      `DTSTART:${icalLocal(event.start)}`,
      `DTEND:${icalLocal(plusMinutes(event.start, event.minutes))}`,
      `SUMMARY:${icalText(event.summary)}`,
      ...(event.location ? [`LOCATION:${icalText(event.location)}`] : []),
      `STATUS:${event.cancelled ? 'CANCELLED' : 'CONFIRMED'}`,
      'END:VEVENT',
    ]),
    'END:VCALENDAR',
  ];
  return `${lines.join('\r\n')}\r\n`;
}

const feedParams = z.object({
  file: z
    .string()
    .max(200)
    .regex(/^[A-Za-z0-9_-]+\.ics$/),
});

/**
 * `GET /api/calendar/{secret}.ics` (no sign-in: the address is the key, docs/family-access.md):
 * a family's feed of its confirmed workshop bookings (a cancelled workshop stays, cancelled; a
 * moved booking shows where it is now), or the agency's of its upcoming workshops. Only the
 * secret's hash is stored; a revoked or unknown address is a 404. Read from the read models at
 * each fetch, so a calendar that fetches again sees every change.
 */
export async function calendarFeedQueries(
  fastify: FastifyInstance,
  { db, today }: { db: pg.Pool; today: AgencyToday },
) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const schema = {
    params: feedParams,
    response: { 200: nonJsonAnswer('text/calendar', 'An iCalendar feed') },
  };
  app.get('/api/calendar/:file', { schema }, async (request, reply) => {
    const secret = request.params.file.replace(/\.ics$/, '');
    const hash = createHash('sha256').update(secret).digest('hex');
    const found = await db.query(
      'select kind, client_id from auth.calendar_feeds where token_hash = $1 and revoked_at is null',
      [hash],
    );
    const feed = found.rows[0] as { kind: 'family' | 'agency'; client_id: string | null } | undefined;
    if (!feed) throw notFound('There is no such calendar.');
    const columns = `e.id as event_id, to_char(e.date_time, 'YYYY-MM-DD"T"HH24:MI') as date_time, e.duration_minutes,
                     e.description, e.location, e.cancelled`;
    const rows =
      feed.kind === 'family'
        ? (
            await db.query(
              `select r.id, ${columns} from workshop_registrations r join workshop_events e on e.id = r.event_id
                where r.client_id = $1 and r.status = 'registered' order by e.date_time, r.id`,
              [feed.client_id],
            )
          ).rows
        : (
            await db.query(
              `select e.id, ${columns} from workshop_events e
                where e.date_time > $1::timestamp and not e.cancelled order by e.date_time, e.id`,
              [nowLocalIn(today.timeZone, today.clock())],
            )
          ).rows;
    const events = rows.map((row) => ({
      uid: feed.kind === 'family' ? `booking-${row.id}` : `workshop-${row.event_id}`,
      start: row.date_time as string,
      minutes: Number(row.duration_minutes),
      summary: row.description as string,
      location: row.location as string,
      cancelled: row.cancelled as boolean,
    }));
    const name = feed.kind === 'family' ? 'Our workshop bookings' : 'Upcoming workshops';
    return reply
      .type('text/calendar; charset=utf-8')
      .header('cache-control', 'private, no-store')
      .send(calendar(name, events, today.clock()));
  });
}
