import { familyInvoice, workshop } from '@agency/domain';
import type { EventStore } from '@agency/platform';
import type pg from 'pg';
import { streamViews } from '../audit/recorded-events';
import { ids, mentionsAny, rows } from './family-export';

/**
 * Everything held about one workshop booking of no known family (its own data subject,
 * `registration:{id}`): the booking as it stands on each event it was on (a move leaves a row on
 * each), those events, the family invoices billing it and their payments, and the history of
 * every change with who and when, read from the event store itself (decrypted): the invoices'
 * streams whole, and of the workshop events' streams the events that name the booking.
 * Undefined when there is no such booking.
 */
export async function registrationExport(db: pg.Pool, store: EventStore, timeZone: string, registrationId: string) {
  const registrations = await rows(db, 'select * from workshop_registrations where id = $1 order by seq', [
    registrationId,
  ]);
  if (registrations.length === 0) return undefined;
  const eventIds = ids(registrations, 'event_id');
  const events = await rows(
    db,
    'select id, description, date_time, duration_minutes, location, cancelled from workshop_events where id = any($1) order by date_time',
    [eventIds],
  );
  // Billed to the booking itself, or (a later booking of the same address) on an invoice billed to another.
  const familyInvoices = await rows(
    db,
    `select * from family_invoices
      where client_id = $2 or id in (select invoice_id from workshop_invoiced where registration_id = $1)
      order by date`,
    [registrationId, `registration:${registrationId}`],
  );
  const payments = await rows(db, 'select * from family_payments where invoice_id = any($1) order by date, id', [
    ids(familyInvoices),
  ]);
  const own = ids(familyInvoices).map((id) => familyInvoice.familyInvoiceStream(id));
  const shared = eventIds.map((id) => workshop.workshopStream(id));
  const about = mentionsAny([registrationId]);
  const history = [];
  for (const streamId of [...own, ...new Set(shared)]) {
    const stream = await store.readStream(streamId);
    history.push(...(await streamViews(db, timeZone, stream, own.includes(streamId) ? () => true : about)));
  }
  history.sort((a, b) => a.recordedAt.localeCompare(b.recordedAt));
  return { registration: { id: registrationId }, registrations, events, familyInvoices, payments, history };
}

export type RegistrationExport = NonNullable<Awaited<ReturnType<typeof registrationExport>>>;
