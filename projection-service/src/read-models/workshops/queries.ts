import {
  alternativesAnswer,
  type EventView,
  eventListAnswer,
  eventListQuery,
  eventParams,
  eventRegistrationsAnswer,
  publicEventsAnswer,
  type RegistrationView,
  readsAsAdmin,
  registrationAnswer,
  registrationParams,
  type SessionUser,
  type WorkshopInvoiceDraft,
  workshopInvoiceDraft,
  workshopInvoiceDraftQuery,
  workshopsReportAnswer,
  workshopsReportQuery,
} from '@agency/contracts';
import { nowLocalIn, toPounds } from '@agency/domain';
import { forbidden, notFound } from '@agency/platform';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type pg from 'pg';
import { requireSignIn } from '../../signed-in';
import { agencyDetailsOf } from '../agency/queries';
import { withMoney } from '../money-columns';

type Today = { timeZone: string; clock: () => Date };

const EVENT_COLUMNS = `
  e.id, e.description, to_char(e.date_time, 'YYYY-MM-DD"T"HH24:MI') as date_time, e.duration_minutes, e.price_pence,
  e.capacity, e.location, e.cancelled,
  count(r.id) filter (where r.status = 'registered')::int as count,
  coalesce(sum(r.places) filter (where r.status in ('registered', 'requested')), 0)::int as places_taken,
  count(r.id) filter (where r.status in ('registered', 'waitlisted') and i.invoice_id is null)::int as un_invoiced,
  count(r.id) filter (where r.status in ('registered', 'waitlisted') and i.invoice_id is not null
                        and coalesce(f.paid_pence, 0) < f.total_pence)::int as unpaid,
  count(r.id) filter (where r.status = 'waitlisted')::int as waitlisted,
  coalesce(sum(r.places) filter (where r.status = 'requested'), 0)::int as places_held,
  count(r.id) filter (where r.status = 'requested_waitlist')::int as waitlist_requests,
  case when e.cancelled then (
    select json_build_object(
             'invoices', count(*),
             'creditNotes', coalesce(
               json_agg(json_build_object('id', f.credit_note_id, 'reference', f.credit_note_reference)
                        order by f.credit_note_reference) filter (where f.credit_note_id is not null),
               '[]'))
      from workshop_cancellation_invoices c left join family_invoices f on f.id = c.invoice_id
     where c.event_id = e.id
  ) end as credits`;
const EVENT_JOINS = `
  from workshop_events e
  left join workshop_registrations r on r.event_id = e.id
  left join workshop_invoiced i on i.registration_id = r.id and r.status in ('registered', 'waitlisted')
  left join family_invoices f on f.id = i.invoice_id`;

function eventOf(row: Record<string, unknown>): EventView {
  const money = withMoney(row);
  return {
    id: String(row.id),
    description: String(row.description),
    dateTime: String(row.date_time),
    durationMinutes: Number(row.duration_minutes),
    price: toPounds(Number(money.price_pence)),
    capacity: Number(row.capacity),
    location: String(row.location),
    cancelled: Boolean(row.cancelled),
    count: Number(row.count),
    placesTaken: Number(row.places_taken),
    placesLeft: Math.max(Number(row.capacity) - Number(row.places_taken), 0),
    unInvoiced: Number(row.un_invoiced),
    unpaid: Number(row.unpaid),
    waitlisted: Number(row.waitlisted),
    placesHeld: Number(row.places_held),
    waitlistRequests: Number(row.waitlist_requests),
    credits: (row.credits as EventView['credits'] | null) ?? null,
  };
}

const REGISTRATION_COLUMNS = `
  r.id, r.event_id, r.client_id, r.status, r.contact, r.children, r.places, r.comments,
  e.price_pence * r.places as price_pence, coalesce(i.price_pence, -1) as invoiced_pence, i.invoice_id, f.reference,
  f.paid_pence, f.total_pence, moving.direction as moving_direction, moving.event_id as moving_event_id,
  moving.description as moving_event`;
// A move under way: leaving this event (its row here is still on the list), or arriving from the old one.
const REGISTRATION_JOINS = `
  from workshop_registrations r
  join workshop_events e on e.id = r.event_id
  left join workshop_invoiced i on i.registration_id = r.id and r.status in ('registered', 'waitlisted')
  left join family_invoices f on f.id = i.invoice_id
  left join lateral (
    select m.direction, m.event_id, me.description from (
      select 'to' as direction, m.to_event_id as event_id from workshop_moves_under_way m
       where m.registration_id = r.id and m.from_event_id = r.event_id
      union all
      select 'from', m.from_event_id from workshop_moves_under_way m
       where m.registration_id = r.id and m.to_event_id = r.event_id
    ) m join workshop_events me on me.id = m.event_id
    where r.status in ('registered', 'waitlisted')
    order by m.direction desc limit 1
  ) moving on true`;

function registrationOf(row: Record<string, unknown>): RegistrationView {
  const money = withMoney(row);
  const invoiced = Number(money.invoiced_pence);
  return {
    id: String(row.id),
    eventId: String(row.event_id),
    clientId: (row.client_id as string | null) ?? null,
    status: row.status === 'waitlisted' ? 'waitlisted' : 'registered',
    contact: row.contact as RegistrationView['contact'],
    children: row.children as RegistrationView['children'],
    comments: String(row.comments),
    price: toPounds(invoiced >= 0 ? invoiced : Number(money.price_pence)),
    invoiceId: (row.invoice_id as string | null) ?? null,
    invoiceRef: (row.reference as string | null) ?? null,
    paid:
      row.total_pence !== null &&
      row.total_pence !== undefined &&
      Number(money.paid_pence) >= Number(money.total_pence),
    moving: row.moving_direction
      ? {
          direction: row.moving_direction === 'to' ? 'to' : 'from',
          eventId: String(row.moving_event_id),
          event: String(row.moving_event),
        }
      : null,
  };
}

/**
 * The workshops read model's views: events with their counts, registrations, the draft of a
 * workshop invoice, the workshops report (admins and auditors), and the public list of upcoming
 * events with places left (no sign-in, no personal data).
 */
export async function workshopQueries(fastify: FastifyInstance, { db, today }: { db: pg.Pool; today: Today }) {
  const nowLocal = () => nowLocalIn(today.timeZone, today.clock());

  async function events(where: string, params: unknown[]): Promise<EventView[]> {
    const rows = await db.query(
      `select ${EVENT_COLUMNS} ${EVENT_JOINS} where ${where} group by e.id order by e.date_time, e.id`,
      params,
    );
    return rows.rows.map(eventOf);
  }
  async function eventOrRefuse(eventId: string) {
    const [event] = await events('e.id = $1', [eventId]);
    if (!event) throw notFound('There is no such event.');
    return event;
  }
  async function registrations(where: string, params: unknown[]) {
    const rows = await db.query(
      `select ${REGISTRATION_COLUMNS} ${REGISTRATION_JOINS} where ${where}
        order by e.date_time, r.event_id, (r.status = 'waitlisted'), r.seq`,
      params,
    );
    return rows.rows.map(registrationOf);
  }
  /** The event's deleted registrations whose invoice is not credited yet (the workflow that credits it runs after). */
  async function crediting(eventId: string) {
    const rows = await db.query(
      `select r.id, r.contact, r.children, i.invoice_id, f.reference
         from workshop_registrations r
         join workshop_invoiced i on i.registration_id = r.id
         left join family_invoices f on f.id = i.invoice_id
        where r.event_id = $1 and r.status = 'deleted' and f.credit_note_id is null
        order by r.seq`,
      [eventId],
    );
    return rows.rows.map((row) => {
      const contact = row.contact as RegistrationView['contact'];
      return {
        id: String(row.id),
        parent: `${contact.firstName} ${contact.lastName}`,
        children: (row.children as RegistrationView['children']).map((child) => `${child.firstName} ${child.lastName}`),
        invoiceId: String(row.invoice_id),
        invoiceRef: (row.reference as string | null) ?? null,
      };
    });
  }
  const open = `not e.cancelled and e.date_time > $1::timestamp`;
  const publicAgency = async () => {
    const { name, email } = await agencyDetailsOf(db);
    return { name, email };
  };

  // The booking page: no sign-in. Of the agency, only what the public may see (publicAgencyView).
  await fastify.register(async (publicScope) => {
    const app = publicScope.withTypeProvider<ZodTypeProvider>();
    app.get('/api/public/events', { schema: { response: { 200: publicEventsAnswer } } }, async () => ({
      agency: await publicAgency(),
      events: (await events(open, [nowLocal()])).map(
        ({ id, description, dateTime, durationMinutes, price, location, placesLeft }) => ({
          id,
          description,
          dateTime,
          durationMinutes,
          price,
          location,
          placesLeft,
        }),
      ),
    }));
  });

  await fastify.register(async (scope) => {
    requireSignIn(scope);
    scope.addHook('preHandler', async (request: FastifyRequest) => {
      if (!readsAsAdmin(request.signedIn.role)) throw forbidden('Workshops are for admins.');
    });
    const app = scope.withTypeProvider<ZodTypeProvider>();

    app.get(
      '/api/events',
      { schema: { querystring: eventListQuery, response: { 200: eventListAnswer } } },
      async (request) => ({
        events:
          request.query.includePast === 'Y' ? await events('true', []) : await events('e.date_time > $1', [nowLocal()]),
      }),
    );

    app.get(
      '/api/events/registrations/:eventId',
      { schema: { params: eventParams, response: { 200: eventRegistrationsAnswer } } },
      async (request) => {
        const event = await eventOrRefuse(request.params.eventId);
        const list = await registrations(`r.event_id = $1 and r.status in ('registered', 'waitlisted')`, [event.id]);
        return { event, registrations: list, crediting: await crediting(event.id) };
      },
    );

    app.get(
      '/api/events/registrations/:eventId/:registrationId',
      { schema: { params: registrationParams, response: { 200: registrationAnswer } } },
      async (request) => {
        const { eventId, registrationId } = request.params;
        const event = await eventOrRefuse(eventId);
        const found = await db.query(
          `select ${REGISTRATION_COLUMNS} ${REGISTRATION_JOINS} where r.event_id = $1 and r.id = $2`,
          [eventId, registrationId],
        );
        const row = found.rows[0];
        if (!row) throw notFound('There is no such registration.');
        const registration = registrationOf(row);
        // The family's other events: the same family, or the same e-mail for a booking of no known family.
        const other = await db.query(
          `select distinct e.id, e.description, to_char(e.date_time, 'YYYY-MM-DD"T"HH24:MI') as date_time
             from workshop_registrations r join workshop_events e on e.id = r.event_id
            where r.status in ('registered', 'waitlisted') and r.event_id <> $1
              and (($2::text is not null and r.client_id = $2) or r.email = lower($3))
            order by date_time`,
          [eventId, registration.clientId, registration.contact.email.trim()],
        );
        return {
          event,
          registration: {
            ...registration,
            deleted: row.status === 'deleted',
            other: other.rows.map((o) => ({ eventId: o.id, event: o.description, date: o.date_time })),
          },
        };
      },
    );

    app.get(
      '/api/events/alternatives/:eventId',
      { schema: { params: eventParams, response: { 200: alternativesAnswer } } },
      async (request) => {
        const all = await events(`${open} and e.id <> $2`, [nowLocal(), request.params.eventId]);
        return { events: all.filter((event) => event.placesLeft > 0) };
      },
    );

    const invoiceDraft = invoiceDraftView(db);
    app.get(
      '/api/events/invoice-draft',
      { schema: { querystring: workshopInvoiceDraftQuery, response: { 200: workshopInvoiceDraft } } },
      async (request) => invoiceDraft(request.signedIn, request.query),
    );

    app.get(
      '/api/reports/workshops',
      { schema: { querystring: workshopsReportQuery, response: { 200: workshopsReportAnswer } } },
      async (request) => {
        const { from, to } = request.query;
        const list =
          from || to
            ? await events(
                `($1::date is null or e.date_time >= $1::date) and ($2::date is null or e.date_time < $2::date + 1)`,
                [from ?? null, to ?? null],
              )
            : await events('e.date_time::date >= $1::date', [nowLocal().slice(0, 10)]);
        const rows = await registrations(`r.event_id = any($1) and r.status = 'registered'`, [list.map((e) => e.id)]);
        return {
          groups: list.map((event) => ({
            event,
            registrations: rows.filter((registration) => registration.eventId === event.id),
          })),
        };
      },
    );
  });
}

/** A family's registrations not yet invoiced, as a draft of their workshop invoice; making the draft answers with it too. */
export const invoiceDraftView =
  (db: pg.Pool) =>
  async (user: SessionUser, query: { email: string }): Promise<WorkshopInvoiceDraft> => {
    // The rule of the route's group, for a caller that is not the route.
    if (!readsAsAdmin(user.role)) throw forbidden('Workshops are for admins.');
    const email = query.email.trim();
    const list = await db.query(
      `select r.id, r.event_id, e.description, to_char(e.date_time, 'YYYY-MM-DD') as date, r.children,
              e.price_pence * r.places as price_pence
         from workshop_registrations r join workshop_events e on e.id = r.event_id
         left join workshop_invoiced i on i.registration_id = r.id
        where r.email = lower($1) and r.status = 'registered' and i.invoice_id is null
          and not e.cancelled
        order by e.date_time, r.seq`,
      [email],
    );
    const rows = list.rows.map(withMoney).map((row) => ({
      id: String(row.id),
      eventId: String(row.event_id),
      event: String(row.description),
      date: String(row.date),
      children: (row.children as { firstName: string }[]).map((child) => child.firstName),
      price: toPounds(Number(row.price_pence)),
      included: true,
    }));
    const total = rows.reduce((sum, row) => sum + Math.round(row.price * 100), 0);
    return { email, registrations: rows, discount: 0, total: toPounds(total) };
  };
