import { tutorAnswer, tutorListAnswer, tutorListQuery, tutorParams } from '@agency/contracts';
import { forbidden, notFound } from '@agency/platform';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type pg from 'pg';
import { requireSignIn } from '../../signed-in';
import { penceFrom } from '../money-columns';
import { nameMatches, nameSearchOf, nameSearchParams } from '../name-search';

/** The tutors list's orders: the columns compared in turn, the id last so the order is total. */
const TUTOR_ORDERS = {
  name: ['last_name', 'first_name', 'id'],
  email: ['email', 'last_name', 'first_name', 'id'],
  startDate: ['start_date', 'last_name', 'first_name', 'id'],
} as const;

const joinAddress = (lines: string[], postcode: string) => [...lines, postcode].filter(Boolean).join(', ');

/** Tutors: the list and the detail are for admins and partners; a tutor may read only their own. */
export async function tutorsQueries(fastify: FastifyInstance, { db }: { db: pg.Pool }) {
  requireSignIn(fastify);
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const list = { querystring: tutorListQuery, response: { 200: tutorListAnswer } };
  app.get('/api/tutors', { schema: list }, async (request) => {
    const user = request.signedIn;
    if (user.role === 'tutor') throw forbidden();
    const includeInactive = request.query.includeInactive === 'Y';
    const descending = request.query.order === 'desc' ? ' desc' : '';
    const order = TUTOR_ORDERS[request.query.sort ?? 'name'].map((column) => `${column}${descending}`).join(', ');
    const result = await db.query(
      `select id, first_name, last_name, address, postcode, email, phone, active,
              to_char(start_date, 'YYYY-MM-DD') as start_date, to_char(end_date, 'YYYY-MM-DD') as end_date
         from tutors
        where ($1 or active) and ${nameMatches('first_name', 'last_name', '$2', '$3')}
        order by ${order}`,
      [includeInactive, ...nameSearchParams(nameSearchOf(request.query.q))],
    );
    return {
      tutors: result.rows.map((row) => ({
        id: row.id,
        name: `${row.first_name} ${row.last_name}`,
        firstName: row.first_name,
        lastName: row.last_name,
        address: joinAddress(row.address, row.postcode),
        phone: row.phone[0]?.number ?? '',
        email: row.email,
        active: row.active,
        startDate: row.start_date,
        endDate: row.end_date,
      })),
    };
  });

  app.get('/api/tutors/:id', { schema: { params: tutorParams, response: { 200: tutorAnswer } } }, async (request) => {
    const user = request.signedIn;
    const { id } = request.params;
    if (user.role === 'tutor' && user.tutorId !== id) throw notFound('There is no such tutor.');
    const found = await db.query(
      `select t.*, to_char(t.start_date, 'YYYY-MM-DD') as start_day, to_char(t.end_date, 'YYYY-MM-DD') as end_day,
              t.activation_expires_at > now() as activation_pending, u.role as account_role
         from tutors t left join users u on u.id = t.user_id
        where t.id = $1`,
      [id],
    );
    const row = found.rows[0];
    if (!row) throw notFound('There is no such tutor.');
    const students = await db.query(
      `select ts.engagement_id, ts.child_id, ts.current, ch.first_name, ch.last_name, ch.client_id,
              to_char(e.start_date, 'YYYY-MM-DD') as start_date, to_char(e.end_date, 'YYYY-MM-DD') as end_date,
              e.rate_pence, e.subjects
         from tutor_students ts left join children ch on ch.id = ts.child_id
         left join engagements e on e.id = ts.engagement_id
        where ts.tutor_id = $1
        order by ch.last_name, ch.first_name, e.start_date desc`,
      [id],
    );
    const student = (s: (typeof students.rows)[number]) => ({
      engagementId: s.engagement_id,
      studentId: s.child_id,
      clientId: s.client_id,
      name: [s.first_name, s.last_name].filter(Boolean).join(' '),
      startDate: s.start_date,
      endDate: s.end_date,
      rate: s.rate_pence === null ? null : penceFrom(s.rate_pence) / 100,
      subjects: s.subjects ?? [],
    });
    const accountActive = row.user_id !== null;
    return {
      tutor: {
        id: row.id,
        name: `${row.first_name} ${row.last_name}`,
        contact: {
          id: row.contact_id,
          firstName: row.first_name,
          lastName: row.last_name,
          address: row.address,
          postcode: row.postcode,
          email: row.email,
          phone: row.phone,
        },
        username: row.username,
        invoicePrefix: row.invoice_prefix,
        startDate: row.start_day,
        endDate: row.end_day,
        active: row.active,
        accountActive,
        accountRole: accountActive ? (row.account_role ?? 'tutor') : null,
        // Whether an unexpired activation code exists; the code itself never leaves the command side.
        activationSent: !accountActive && row.activation_pending === true,
        activationExpiresAt: row.activation_expires_at ? new Date(row.activation_expires_at).toISOString() : null,
        currentStudents: students.rows.filter((s) => s.current).map(student),
        formerStudents: students.rows.filter((s) => !s.current).map(student),
      },
    };
  });
}
