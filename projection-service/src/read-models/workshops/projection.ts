import { type ClientEvent, ERASED, type WorkshopEvent, type WorkshopEventDetails } from '@agency/contracts';
import type pg from 'pg';
import { defineProjection } from '../projection';

function upsertEvent(sql: pg.ClientBase, e: WorkshopEventDetails) {
  return sql.query(
    `insert into workshop_events (id, description, date_time, duration_minutes, price_pence, capacity, location)
     values ($1, $2, $3, $4, $5, $6, $7)
     on conflict (id) do update set description = excluded.description, date_time = excluded.date_time,
       duration_minutes = excluded.duration_minutes, price_pence = excluded.price_pence, capacity = excluded.capacity,
       location = excluded.location`,
    [e.eventId, e.description, e.dateTime, e.durationMinutes, e.pricePence, e.capacity, e.location],
  );
}

const setStatus = (sql: pg.ClientBase, eventId: string, registrationId: string, status: string, movedTo?: string) =>
  sql.query('update workshop_registrations set status = $3, moved_to = $4 where event_id = $1 and id = $2', [
    eventId,
    registrationId,
    status,
    movedTo ?? null,
  ]);

/** The rows of erased bookings, as their shredded events read (personal fields "Erased", no children). */
const eraseRegistrations = (sql: pg.ClientBase, column: 'client_id' | 'id', value: string) =>
  sql.query(
    `update workshop_registrations set contact = $2, email = lower($3), children = '[]', comments = $3
      where ${column} = $1`,
    [
      value,
      JSON.stringify({
        firstName: ERASED,
        lastName: ERASED,
        address: [ERASED],
        postcode: ERASED,
        email: ERASED,
        phone: ERASED,
      }),
      ERASED,
    ],
  );

export const workshopsProjection = defineProjection<WorkshopEvent | ClientEvent>({
  name: 'workshops',
  version: 1,
  migrations: ['030_workshops.sql'],
  handlers: {
    // An erased family's bookings read as their shredded events do, so a rebuild makes the same rows.
    ClientErased: (sql, { data: { clientId } }) => eraseRegistrations(sql, 'client_id', clientId),
    // So does an erased booking of no known family, on every event it was on.
    WorkshopRegistrationErased: (sql, { data: { registrationId } }) => eraseRegistrations(sql, 'id', registrationId),
    WorkshopEventScheduled: (sql, { data }) => upsertEvent(sql, data),
    WorkshopEventChanged: (sql, { data }) => upsertEvent(sql, data),
    WorkshopEventCancelled: (sql, { data }) =>
      sql.query('update workshop_events set cancelled = true where id = $1', [data.eventId]),
    WorkshopRegistrationMade: (sql, { data: r }) =>
      sql.query(
        `insert into workshop_registrations (event_id, id, client_id, contact, email, children, places, comments, status,
                                             moved_from)
         values ($1, $2, $3, $4, lower($5), $6, $7, $8, $9, $10)
         on conflict (event_id, id) do update set status = excluded.status, moved_from = excluded.moved_from,
           moved_to = null`,
        [
          r.eventId,
          r.registrationId,
          r.clientId,
          JSON.stringify(r.contact),
          r.contact.email.trim(),
          JSON.stringify(r.children),
          r.places,
          r.comments,
          r.status,
          r.movedFrom,
        ],
      ),
    WorkshopRegistrationPlaced: (sql, { data }) => setStatus(sql, data.eventId, data.registrationId, 'registered'),
    WorkshopRegistrationDeleted: (sql, { data }) => setStatus(sql, data.eventId, data.registrationId, 'deleted'),
    WorkshopRegistrationMovedOut: (sql, { data }) =>
      setStatus(sql, data.eventId, data.registrationId, 'moved', data.toEventId),
    WorkshopInvoiceConfirmed: async (sql, { data }) => {
      for (const r of data.registrations) {
        await sql.query(
          `insert into workshop_invoiced (registration_id, invoice_id, price_pence) values ($1, $2, $3)
           on conflict (registration_id) do update set invoice_id = excluded.invoice_id, price_pence = excluded.price_pence`,
          [r.registrationId, data.invoiceId, r.pricePence],
        );
      }
    },
    WorkshopInvoiceCredited: (sql, { data }) =>
      sql.query('delete from workshop_invoiced where invoice_id = $1', [data.invoiceId]),
  },
});
