import {
  clientAnswer,
  clientChildrenAnswer,
  clientListAnswer,
  clientListQuery,
  clientParams,
  contactAnswer,
  contactParams,
  type SessionUser,
} from '@agency/contracts';
import { todayIn } from '@agency/domain';
import { forbidden, notFound } from '@agency/platform';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type pg from 'pg';
import { requireSignIn } from '../../signed-in';
import { nameMatches, nameSearchOf, nameSearchParams } from '../name-search';
import { decodeCursor, encodeCursor, listChanged } from '../paging';

type ContactRow = {
  id: string;
  client_id: string;
  first_name: string;
  last_name: string;
  address: string[];
  postcode: string;
  email: string;
  phone: { type: string; number: string }[];
  dob: string | null;
};

const contactJson = (row: ContactRow) => ({
  id: row.id,
  clientId: row.client_id,
  firstName: row.first_name,
  lastName: row.last_name,
  address: row.address,
  postcode: row.postcode,
  email: row.email,
  phone: row.phone,
  dob: row.dob,
});

const CONTACT_COLUMNS = `id, client_id, first_name, last_name, address, postcode, email, phone, to_char(dob, 'YYYY-MM-DD') as dob`;

/**
 * The clients list's orders: the columns of `listed` compared, in turn (the last one the id, so
 * that the order is total and a cursor finds its place); `students` when the count is one of them.
 */
const CLIENT_ORDERS = {
  name: { keys: ['last_name', 'first_name', 'id'], students: false },
  email: { keys: ['email', 'last_name', 'first_name', 'id'], students: false },
  students: { keys: ['student_count', 'last_name', 'first_name', 'id'], students: true },
} as const;

/** What "today" is for the agency: its time zone and a clock. */
export type AgencyToday = { timeZone: string; clock: () => Date };

/**
 * A tutor's current students: an engagement that has not ended by today (the agency's date). The
 * one rule for which families a tutor reads, and for the staff tutor filter's "current".
 */
const CURRENT_ENGAGEMENT = (engagement: string, today: string) =>
  `(${engagement}.end_date is null or ${engagement}.end_date >= ${today}::date)`;

/**
 * Tutors see only the families of their current students (least privilege: a former student's
 * family is no longer theirs to read); staff see every family.
 */
async function mayReadClient(db: pg.Pool, user: SessionUser, clientId: string, today: string) {
  if (user.role !== 'tutor') return true;
  const found = await db.query(
    `select 1 from engagements e join children ch on ch.id = e.student_id
      where e.tutor_id = $1 and ch.client_id = $2 and ${CURRENT_ENGAGEMENT('e', '$3')} limit 1`,
    [user.tutorId ?? '', clientId, today],
  );
  return (found.rowCount ?? 0) > 0;
}

export async function clientsQueries(fastify: FastifyInstance, { db, today }: { db: pg.Pool; today: AgencyToday }) {
  requireSignIn(fastify);
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const todayNow = () => todayIn(today.timeZone, today.clock());

  // The tutor detail's edit-contact link opens the same contact form: a tutor's contact is read here too.
  async function tutorContact(contactId: string, user: SessionUser) {
    const found = await db.query(
      'select id, contact_id, first_name, last_name, address, postcode, email, phone from tutors where contact_id = $1',
      [contactId],
    );
    const tutor = found.rows[0];
    if (!tutor || (user.role === 'tutor' && user.tutorId !== tutor.id)) throw notFound('There is no such contact.');
    return {
      contact: {
        id: tutor.contact_id,
        tutorId: tutor.id,
        firstName: tutor.first_name,
        lastName: tutor.last_name,
        address: tutor.address,
        postcode: tutor.postcode,
        email: tutor.email,
        phone: tutor.phone,
        dob: null,
      },
    };
  }

  const list = { querystring: clientListQuery, response: { 200: clientListAnswer } };
  app.get('/api/clients', { schema: list }, async (request) => {
    const user = request.signedIn;
    const includeInactive = request.query.includeInactive === 'Y';
    const tutorId = user.role === 'tutor' ? (user.tutorId ?? '') : request.query.tutor || null;
    // A tutor's list is their current students' families, whatever `includeInactive` says; for
    // staff, `includeInactive` also widens a tutor filter to that tutor's former students.
    const currentOnly = user.role === 'tutor' || !includeInactive;
    const { limit, cursor } = request.query;
    const order = CLIENT_ORDERS[request.query.sort ?? 'name'];
    const descending = request.query.order === 'desc';
    // A cursor is the last family shown: its id (its name is looked up here, never sent).
    const [afterId] = cursor === undefined ? [null] : decodeCursor(cursor, 1);
    const keys = order.keys.map((key) => `l.${key}`).join(', ');
    const orderBy = (table: string) =>
      order.keys.map((key) => `${table}.${key}${descending ? ' desc' : ''}`).join(', ');
    // The families listed, by their first contact's name (or the order asked for); one page of
    // them after the cursor's family (found in the same list), with one row more to tell whether a
    // page follows. The address and the count of children are worked out for the page's rows
    // only, unless the list is in the order of the count. A search finds the families with a
    // contact or a child of that name through the name indexes (name-search.ts).
    const result = await db.query(
      `with listed as (
         select c.id, c.active, first.first_name, first.last_name, first.address, first.postcode, first.email,
                first.phone, ${order.students ? '(select count(*)::int from children ch where ch.client_id = c.id)' : 'null::int'} as student_count
           from clients c
           join lateral (select * from contacts ct where ct.client_id = c.id order by seq limit 1) first on true
          where ($1 or c.active)
            and ($2::text is null or exists (
                  select 1 from engagements e join children ch on ch.id = e.student_id
                   where ch.client_id = c.id and e.tutor_id = $2 and (not $3 or ${CURRENT_ENGAGEMENT('e', '$4')})))
            and ($7::text is null or c.id in (
                  select ct.client_id from contacts ct where ${nameMatches('ct.first_name', 'ct.last_name', '$7', '$8')}
                  union
                  select ch.client_id from children ch where ${nameMatches('ch.first_name', 'ch.last_name', '$7', '$8')}))
       ),
       shown as (
         select l.id, l.active, l.first_name || ' ' || l.last_name as name, l.last_name, l.first_name, l.email,
                l.student_count, array_to_string(array(select jsonb_array_elements_text(l.address)), ', ') as address_lines,
                l.postcode, l.phone -> 0 ->> 'number' as phone,
                (select count(*)::int from children ch where ch.client_id = l.id) as students
           from listed l
          where ($5::text is null or (${keys}) ${descending ? '<' : '>'}
                  (select ${order.keys.join(', ')} from listed where id = $5))
          order by ${orderBy('l')}
          limit $6
       )
       -- The whole list's size and whether the cursor's family is in it, with the page (or alone).
       select whole.total, whole.cursor_listed, shown.*
         from (select count(*)::int as total, coalesce(bool_or(id = $5), false) as cursor_listed from listed) whole
         left join shown on true
        order by ${orderBy('shown')}`,
      [
        includeInactive,
        tutorId,
        currentOnly,
        todayNow(),
        afterId,
        limit + 1,
        ...nameSearchParams(nameSearchOf(request.query.q)),
      ],
    );
    const { total, cursor_listed: cursorListed } = result.rows[0];
    if (afterId !== null && !cursorListed) throw listChanged();
    const rows = result.rows.filter((row) => row.id !== null);
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      clients: page.map((row) => ({
        id: row.id,
        name: row.name,
        address: [row.address_lines, row.postcode].filter(Boolean).join(', '),
        phone: row.phone ?? '',
        email: row.email,
        students: row.students,
        active: row.active,
      })),
      total,
      nextCursor: rows.length > limit && last ? encodeCursor([last.id]) : null,
    };
  });

  const children = { params: clientParams, response: { 200: clientChildrenAnswer } };
  app.get('/api/clients/:id/children', { schema: children }, async (request) => {
    const user = request.signedIn;
    const all = request.params.id === 'all';
    if (!all && !(await mayReadClient(db, user, request.params.id, todayNow())))
      throw notFound('There is no such client.');
    if (all && user.role === 'tutor') throw forbidden();
    const result = await db.query(
      `select ch.id, ch.client_id, ch.first_name, ch.last_name, to_char(ch.dob, 'YYYY-MM-DD') as dob
         from children ch join clients c on c.id = ch.client_id
        where ($1 or ch.client_id = $2)
        order by ch.last_name, ch.first_name`,
      [all, request.params.id],
    );
    return {
      children: result.rows.map((row) => ({
        id: row.id,
        clientId: row.client_id,
        firstName: row.first_name,
        lastName: row.last_name,
        dob: row.dob,
        name: `${row.first_name} ${row.last_name}`,
      })),
    };
  });

  app.get(
    '/api/clients/:id',
    { schema: { params: clientParams, response: { 200: clientAnswer } } },
    async (request) => {
      const user = request.signedIn;
      const { id } = request.params;
      const client = await db.query(
        `select id, to_char(start_date, 'YYYY-MM-DD') as start_date, active, erased from clients where id = $1`,
        [id],
      );
      if (client.rowCount === 0 || !(await mayReadClient(db, user, id, todayNow())))
        throw notFound('There is no such client.');
      const contacts = await db.query<ContactRow>(
        `select ${CONTACT_COLUMNS} from contacts where client_id = $1 order by seq`,
        [id],
      );
      const children = await db.query(
        `select id, first_name, last_name, to_char(dob, 'YYYY-MM-DD') as dob from children where client_id = $1 order by dob, first_name`,
        [id],
      );
      const row = client.rows[0];
      return {
        client: {
          id: row.id,
          startDate: row.start_date,
          active: row.active,
          erased: row.erased,
          contacts: contacts.rows.map(contactJson),
          children: children.rows.map((child) => ({
            id: child.id,
            firstName: child.first_name,
            lastName: child.last_name,
            dob: child.dob,
          })),
        },
      };
    },
  );

  app.get(
    '/api/contacts/:id',
    { schema: { params: contactParams, response: { 200: contactAnswer } } },
    async (request) => {
      const user = request.signedIn;
      const result = await db.query<ContactRow>(`select ${CONTACT_COLUMNS} from contacts where id = $1`, [
        request.params.id,
      ]);
      const row = result.rows[0];
      if (!row) return tutorContact(request.params.id, user);
      if (!(await mayReadClient(db, user, row.client_id, todayNow()))) throw notFound('There is no such contact.');
      return { contact: contactJson(row) };
    },
  );
}
