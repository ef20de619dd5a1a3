import type { BookingDataExport } from '@agency/contracts';
import { familyInvoice, workshop } from '@agency/domain';
import type { EventStore } from '@agency/platform';
import type pg from 'pg';
import { familyDocuments, mentionsAny, workshopBookings } from './family-export';
import { familyHistory } from './family-history';

/**
 * Everything held about one workshop booking of no known family (its own data subject,
 * `registration:{id}`), as that subject may read it (subject-access-export.ts): the booking as it
 * stands on each event it was on (a move leaves a row on each), the family invoices billing it and
 * their payments, and the history of every change told to the subject (family-history.ts), read
 * from the event store itself (decrypted): the invoices' streams whole, and of the workshop events'
 * streams the events that name the booking. Undefined when there is no such booking.
 */
export async function registrationExport(
  db: pg.Pool,
  store: EventStore,
  timeZone: string,
  registrationId: string,
): Promise<Omit<BookingDataExport, 'exportedAt'> | undefined> {
  const booked = await workshopBookings(db, 'r.id = $1', [registrationId]);
  if (booked.bookings.length === 0) return undefined;
  // Billed to the booking itself, or (a later booking of the same address) on an invoice billed to another.
  const { invoiceIds, invoices, payments } = await familyDocuments(
    db,
    'f.client_id = $2 or f.id in (select invoice_id from workshop_invoiced where registration_id = $1)',
    [registrationId, `registration:${registrationId}`],
  );
  const about = mentionsAny([registrationId]);
  const history = await familyHistory(store, timeZone, [
    ...invoiceIds.map((id) => ({ streamId: familyInvoice.familyInvoiceStream(id), about: () => true })),
    ...booked.eventIds.map((id) => ({ streamId: workshop.workshopStream(id), about })),
  ]);
  return { booking: { id: registrationId }, workshopBookings: booked.bookings, invoices, payments, history };
}
