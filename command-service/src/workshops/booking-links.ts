import { randomBytes } from 'node:crypto';
import { LIMITS } from '@agency/contracts';
import { inTransaction } from '@agency/platform/transaction';
import type pg from 'pg';
import { sha256 } from '../tutors/tutor-routes';

export type BookingLink = { eventId: string; registrationId: string; linkId: string };

/**
 * The e-mailed links that confirm public bookings (docs/limits.md, "Public bookings"). The secret
 * exists in the mail only: `command.booking_links` keeps its hash, and `auth.pending_links` holds
 * it until the mail reactor has sent it (the event names the link's id, never the secret).
 */
export function bookingLinks(db: pg.Pool) {
  const holdUntil = (now: Date) => new Date(now.getTime() + LIMITS.bookingHoldMinutes * 60_000);

  return {
    /**
     * Makes the link of a booking before it is requested, so its mail has a secret to carry; a
     * retried booking keeps the link its first run made.
     */
    async prepare(eventId: string, registrationId: string, linkId: string, now: Date) {
      const secret = randomBytes(32).toString('base64url');
      const expiresAt = holdUntil(now);
      await inTransaction(db, async (client) => {
        const made = await client.query(
          `insert into command.booking_links (token_hash, event_id, registration_id, link_id, expires_at)
           values ($1, $2, $3, $4, $5) on conflict (registration_id) do nothing`,
          [sha256(secret), eventId, registrationId, linkId, expiresAt],
        );
        if (made.rowCount === 1) {
          await client.query(
            'insert into auth.pending_links (id, secret, expires_at) values ($1, $2, $3) on conflict (id) do nothing',
            [linkId, secret, expiresAt],
          );
        }
      });
      return { linkId };
    },

    /** A booking refused (nothing recorded): its link goes too. */
    async discard(registrationId: string, linkId: string) {
      await db.query('delete from command.booking_links where registration_id = $1', [registrationId]);
      await db.query('delete from auth.pending_links where id = $1', [linkId]);
    },

    /** The booking a link's secret confirms, while its row is kept (until the lapse chore removes it). */
    async find(secret: string): Promise<BookingLink | undefined> {
      const found = await db.query(
        'select event_id, registration_id, link_id from command.booking_links where token_hash = $1',
        [sha256(secret)],
      );
      const row = found.rows[0];
      return row ? { eventId: row.event_id, registrationId: row.registration_id, linkId: row.link_id } : undefined;
    },

    /** Whether a link's secret may still be mailed: its booking has not lapsed. */
    async live(secret: string, now: Date): Promise<boolean> {
      const found = await db.query('select 1 from command.booking_links where token_hash = $1 and expires_at > $2', [
        sha256(secret),
        now,
      ]);
      return found.rowCount === 1;
    },

    /** Links past their time, oldest first: their bookings are confirmed, or lapse now. */
    async due(now: Date, limit: number): Promise<BookingLink[]> {
      const found = await db.query(
        `select event_id, registration_id, link_id from command.booking_links
          where expires_at <= $1 order by expires_at limit $2`,
        [now, limit],
      );
      return found.rows.map((row) => ({
        eventId: row.event_id,
        registrationId: row.registration_id,
        linkId: row.link_id,
      }));
    },
  };
}
export type BookingLinks = ReturnType<typeof bookingLinks>;
