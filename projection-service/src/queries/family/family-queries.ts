import {
  type FamilyBookingState,
  familyBookingsAnswer,
  familyDetailsAnswer,
  familyDocumentParams,
  familyLessonsAnswer,
  familyLessonsQuery,
  familyOverviewAnswer,
  pdfAnswer,
  type SessionUser,
} from '@agency/contracts';
import { todayIn, toHours } from '@agency/domain';
import { type EventStore, forbidden } from '@agency/platform';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type pg from 'pg';
import type { AgencyToday } from '../../read-models/clients/queries';
import { familyOverview } from '../../read-models/family-invoices/family-overview';
import { sendFamilyDocument } from '../../read-models/family-invoices/queries';
import { requireSignIn } from '../../signed-in';

/** The signed-in family's own id: every family query reads this family and no other. */
const familyOf = (user: SessionUser) => {
  if (user.role !== 'family' || !user.clientId) throw forbidden('These pages are for families.');
  return user.clientId;
};

/**
 * A family's own pages (docs/family-access.md), for a family's login only, each read for the
 * family the session names and none other (an id of another family's answers 404):
 * - `GET /api/family/overview`: what it owes, its invoices and credit notes, its latest lessons, its tutors;
 * - `GET /api/family/details`: its contacts and children;
 * - `GET /api/family/lessons?year=`: the lessons delivered to its children (date, child, tutor, duration);
 * - `GET /api/family/invoices/doc/:id`: one of its invoices' or credit notes' PDF;
 * - `GET /api/family/bookings`: its workshop bookings and their state.
 * Never a rate, commission, partner share or tutor's pay: the answers hold none, and the one rule
 * (contracts/src/visibility.ts) hides any from a family all the same.
 */
export async function familyQueries(
  fastify: FastifyInstance,
  { db, today, store }: { db: pg.Pool; today: AgencyToday; store: EventStore },
) {
  requireSignIn(fastify);
  // Routes of families: their sessions reach these (and, of the API, only these).
  fastify.addHook('onRoute', (route) => {
    route.config = { ...route.config, families: true };
  });
  // Staff have their own pages of a family: these answer a family's login only.
  fastify.addHook('preHandler', async (request: FastifyRequest) => {
    familyOf(request.signedIn);
  });
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const own = (request: FastifyRequest) => familyOf(request.signedIn);

  app.get('/api/family/overview', { schema: { response: { 200: familyOverviewAnswer } } }, async (request) =>
    familyOverview(db, own(request), todayIn(today.timeZone, today.clock())),
  );

  app.get('/api/family/details', { schema: { response: { 200: familyDetailsAnswer } } }, async (request) => {
    const id = own(request);
    const [contacts, children] = await Promise.all([
      db.query(
        'select id, first_name, last_name, email, phone, address, postcode from contacts where client_id = $1 order by seq',
        [id],
      ),
      db.query('select id, first_name, last_name from children where client_id = $1 order by first_name, id', [id]),
    ]);
    return {
      family: {
        id,
        contacts: contacts.rows.map((row) => ({
          id: row.id,
          firstName: row.first_name,
          lastName: row.last_name,
          email: row.email,
          phone: row.phone,
          address: row.address,
          postcode: row.postcode,
        })),
        children: children.rows.map((row) => ({ id: row.id, firstName: row.first_name, lastName: row.last_name })),
      },
    };
  });

  app.get(
    '/api/family/lessons',
    { schema: { querystring: familyLessonsQuery, response: { 200: familyLessonsAnswer } } },
    async (request) => {
      const id = own(request);
      const now = todayIn(today.timeZone, today.clock());
      const year = request.query.year ?? Number(now.slice(0, 4));
      // Through the lessons' (tutor, month) index: the family's tutors only, the year's months only.
      const found = await db.query(
        `select l.id, to_char(l.date, 'YYYY-MM-DD') as date, ch.first_name || ' ' || ch.last_name as child,
                coalesce(t.first_name || ' ' || t.last_name, '') as tutor, l.duration_hundredths
           from lessons l
           join children ch on ch.id = l.student_id
           left join tutors t on t.id = l.tutor_id
          where l.tutor_id = any(array(select e.tutor_id from engagements e join children c on c.id = e.student_id
                                        where c.client_id = $1))
            and l.month like $2 and ch.client_id = $1 and l.date <= $3::date
          order by l.date desc, l.id desc`,
        [id, `${year}-%`, now],
      );
      return {
        year,
        lessons: found.rows.map((row) => ({
          id: row.id,
          date: row.date,
          child: row.child,
          tutor: row.tutor,
          duration: toHours(Number(row.duration_hundredths)),
        })),
      };
    },
  );

  const document = {
    params: familyDocumentParams,
    response: { 200: pdfAnswer("One of the family's invoices or credit notes") },
  };
  app.get('/api/family/invoices/doc/:id', { schema: document }, async (request, reply) =>
    sendFamilyDocument({ db, store }, reply, request.params.id, own(request)),
  );

  app.get('/api/family/bookings', { schema: { response: { 200: familyBookingsAnswer } } }, async (request) => {
    const id = own(request);
    // Its registrations, and the public bookings asked for with one of its addresses and not yet confirmed.
    const found = await db.query(
      `select r.id, r.event_id, e.description, to_char(e.date_time, 'YYYY-MM-DD"T"HH24:MI') as date_time, e.location,
              e.cancelled, r.children, r.status
         from workshop_registrations r join workshop_events e on e.id = r.event_id
        where (r.client_id = $1 and r.status in ('registered', 'waitlisted'))
           or (r.client_id is null and r.status in ('requested', 'requested_waitlist')
               and lower(r.email) in (select lower(c.email) from contacts c where c.client_id = $1))
        order by e.date_time desc, r.seq`,
      [id],
    );
    const stateOf = (status: string): FamilyBookingState =>
      status === 'registered' ? 'confirmed' : status === 'waitlisted' ? 'waiting list' : 'requested';
    return {
      bookings: found.rows.map((row) => ({
        id: row.id,
        eventId: row.event_id,
        description: row.description,
        dateTime: row.date_time,
        location: row.location,
        children: (row.children as { firstName: string }[]).map((child) => child.firstName),
        state: stateOf(row.status),
        cancelled: row.cancelled as boolean,
      })),
    };
  });
}
