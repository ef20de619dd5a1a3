import {
  type ClientEvent,
  ERASED,
  type RegistrationDetails,
  type WorkshopEvent,
  type WorkshopEventDetails,
} from '@agency/contracts';
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

/** Its move-out from `eventId` is recorded, or it was deleted there (so it will never move out): no move is under way. */
const moveEnded = (sql: pg.ClientBase, eventId: string, registrationId: string) =>
  sql.query('delete from workshop_moves_under_way where registration_id = $1 and from_event_id = $2', [
    registrationId,
    eventId,
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

/** A registration's row, numbered after the last (its place in its event's list); `onConflict` says what a second time does. */
const insertRegistration = (
  sql: pg.ClientBase,
  r: Pick<
    RegistrationDetails,
    'eventId' | 'registrationId' | 'clientId' | 'contact' | 'children' | 'places' | 'comments' | 'movedFrom'
  > & {
    status: string;
  },
  onConflict: string,
) =>
  sql.query(
    `insert into workshop_registrations (event_id, id, seq, client_id, contact, email, children, places, comments,
                                         status, moved_from)
     values ($1, $2, (select coalesce(max(seq), 0) + 1 from workshop_registrations), $3, $4, lower($5), $6, $7, $8, $9,
             $10)
     ${onConflict}`,
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
  );

/** The row was a public booking awaiting confirmation until this event. */
const REQUESTED = `workshop_registrations.status in ('requested', 'requested_waitlist')`;

export const workshopsProjection = defineProjection<WorkshopEvent | ClientEvent>({
  name: 'workshops',
  version: 3,
  migrations: ['030_workshops.sql', '031_workshop_workflows.sql', '032_workshop_registration_order.sql'],
  handlers: {
    // An erased family's bookings read as their shredded events do, so a rebuild makes the same rows.
    ClientErased: (sql, { data: { clientId } }) => eraseRegistrations(sql, 'client_id', clientId),
    // So does an erased booking of no known family, on every event it was on.
    WorkshopRegistrationErased: (sql, { data: { registrationId } }) => eraseRegistrations(sql, 'id', registrationId),
    WorkshopEventScheduled: (sql, { data }) => upsertEvent(sql, data),
    WorkshopEventChanged: (sql, { data }) => upsertEvent(sql, data),
    WorkshopEventCancelled: async (sql, { data }) => {
      await sql.query('update workshop_events set cancelled = true where id = $1', [data.eventId]);
      // What the crediting workflow will credit, as the log stood at the cancellation: every invoice
      // billing a registration on the event then, but for one moving away (its invoice goes with it).
      return sql.query(
        `insert into workshop_cancellation_invoices (event_id, invoice_id)
         select distinct r.event_id, i.invoice_id
           from workshop_registrations r join workshop_invoiced i on i.registration_id = r.id
          where r.event_id = $1 and r.status in ('registered', 'waitlisted')
            and not exists (select 1 from workshop_moves_under_way m
                             where m.registration_id = r.id and m.from_event_id = r.event_id)
         on conflict do nothing`,
        [data.eventId],
      );
    },
    WorkshopRegistrationMade: async (sql, { data: r }) => {
      await insertRegistration(
        sql,
        r,
        `on conflict (event_id, id) do update set status = excluded.status, moved_from = excluded.moved_from,
           moved_to = null,
           -- A confirmed public booking: the family it is now linked to, its details as sealed for it.
           client_id = case when ${REQUESTED} then excluded.client_id else workshop_registrations.client_id end,
           contact = case when ${REQUESTED} then excluded.contact else workshop_registrations.contact end,
           email = case when ${REQUESTED} then excluded.email else workshop_registrations.email end,
           children = case when ${REQUESTED} then excluded.children else workshop_registrations.children end,
           comments = case when ${REQUESTED} then excluded.comments else workshop_registrations.comments end`,
      );
      if (r.movedFrom === null) return;
      // On the old event until the workflow moves it out; unless it is not there any more (deleted
      // meanwhile), when nothing is left to move out.
      return sql.query(
        `insert into workshop_moves_under_way (registration_id, from_event_id, to_event_id)
         select id, event_id, $3 from workshop_registrations
          where event_id = $2 and id = $1 and status in ('registered', 'waitlisted')
         on conflict (registration_id, from_event_id) do update set to_event_id = excluded.to_event_id`,
        [r.registrationId, r.movedFrom, r.eventId],
      );
    },
    // A public booking awaiting its address's confirmation: `requested` holds its places,
    // `requested_waitlist` will join the waiting list (docs/limits.md, "Public bookings").
    WorkshopBookingRequested: (sql, { data: r }) =>
      insertRegistration(
        sql,
        { ...r, clientId: null, status: r.held ? 'requested' : 'requested_waitlist', movedFrom: null },
        'on conflict (event_id, id) do nothing',
      ),
    // Its personal data is destroyed with the lapse, so the row reads as its shredded events do.
    WorkshopBookingLapsed: async (sql, { data }) => {
      await setStatus(sql, data.eventId, data.registrationId, 'lapsed');
      return eraseRegistrations(sql, 'id', data.registrationId);
    },
    WorkshopRegistrationPlaced: (sql, { data }) => setStatus(sql, data.eventId, data.registrationId, 'registered'),
    WorkshopRegistrationDeleted: async (sql, { data }) => {
      await setStatus(sql, data.eventId, data.registrationId, 'deleted');
      return moveEnded(sql, data.eventId, data.registrationId);
    },
    WorkshopRegistrationMovedOut: async (sql, { data }) => {
      await setStatus(sql, data.eventId, data.registrationId, 'moved', data.toEventId);
      return moveEnded(sql, data.eventId, data.registrationId);
    },
    WorkshopInvoiceConfirmed: async (sql, { data }) => {
      for (const r of data.registrations) {
        await sql.query(
          `insert into workshop_invoiced (registration_id, invoice_id, price_pence) values ($1, $2, $3)
           on conflict (registration_id) do update set invoice_id = excluded.invoice_id, price_pence = excluded.price_pence`,
          [r.registrationId, data.invoiceId, r.pricePence],
        );
      }
      // A confirmation that raced its event's cancellation lands after it: that invoice is credited
      // too (by the workflow that issues it), so it counts among the cancelled event's.
      return sql.query(
        `insert into workshop_cancellation_invoices (event_id, invoice_id)
         select distinct r.event_id, $1
           from unnest($2::text[], $3::text[]) as confirmed (event_id, registration_id)
           join workshop_events e on e.id = confirmed.event_id and e.cancelled
           join workshop_registrations r on r.event_id = confirmed.event_id and r.id = confirmed.registration_id
          where r.status in ('registered', 'waitlisted')
            and not exists (select 1 from workshop_moves_under_way m
                             where m.registration_id = r.id and m.from_event_id = r.event_id)
         on conflict do nothing`,
        [data.invoiceId, data.registrations.map((r) => r.eventId), data.registrations.map((r) => r.registrationId)],
      );
    },
    WorkshopInvoiceCredited: (sql, { data }) =>
      sql.query('delete from workshop_invoiced where invoice_id = $1', [data.invoiceId]),
  },
});
