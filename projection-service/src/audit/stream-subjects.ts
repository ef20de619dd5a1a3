import { type ActivitySubjectView, ERASED } from '@agency/contracts';
import type pg from 'pg';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `2024-03` → `Mar 2024`. */
const monthName = (year: string, month: string) => `${MONTHS[Number(month) - 1] ?? month} ${year}`;

/** A read model row a stream is named from: which table (`lookup`) and the key of its row. */
type Lookup = 'client' | 'tutor' | 'engagement' | 'consultation' | 'family-invoice' | 'workshop-event' | 'user';

/**
 * What a stream id says of its subject (ARCHITECTURE, "API conventions": stream ids name the
 * aggregate and its key): its kind, the row to name it from, and how its name and page follow
 * from that row's `name` and `linkId`.
 */
type Parsed = {
  kind: string;
  lookup?: { table: Lookup; key: string };
  name: (found: string | null) => string;
  path: (linkId: string | null) => string | null;
};

const named = (found: string | null) => found ?? 'Unknown';

function parse(streamId: string): Parsed {
  const month = /^(timesheet|invoice)-(.+)-(\d{4})-(\d{2})$/.exec(streamId);
  if (month) {
    const [, kind, tutorId = '', year = '', number = ''] = month;
    const page = kind === 'timesheet' ? 'lessons' : 'invoices';
    return {
      kind: kind === 'timesheet' ? 'Lessons' : 'Invoice',
      lookup: { table: 'tutor', key: tutorId },
      name: (found) => `${named(found)}, ${monthName(year, number)}`,
      path: () => `/${page}?${new URLSearchParams({ year, month: String(Number(number)), tutorId })}`,
    };
  }
  const keyed =
    /^(client|tutor|engagement|consultation|family-invoice|workshop-event|workshop-account|user|invoice-numbers)-(.+)$/.exec(
      streamId,
    );
  const [, prefix = '', key = ''] = keyed ?? [];
  switch (prefix) {
    case 'client':
      return { kind: 'Family', lookup: { table: 'client', key }, name: named, path: () => `/client/${key}` };
    case 'tutor':
      return { kind: 'Tutor', lookup: { table: 'tutor', key }, name: named, path: () => `/tutor/${key}` };
    case 'invoice-numbers':
      return { kind: 'Invoice numbers', lookup: { table: 'tutor', key }, name: named, path: () => `/tutor/${key}` };
    case 'engagement':
      return {
        kind: 'Engagement',
        lookup: { table: 'engagement', key },
        name: named,
        path: (tutorId) => (tutorId ? `/engagement/detail/${tutorId}/${key}` : null),
      };
    case 'consultation':
      return {
        kind: 'Consultation',
        lookup: { table: 'consultation', key },
        name: named,
        path: () => '/consultations',
      };
    case 'family-invoice':
      return {
        kind: 'Family invoice',
        lookup: { table: 'family-invoice', key },
        name: named,
        path: (clientId) => (clientId ? `/client/${clientId}` : null),
      };
    case 'workshop-event':
      return {
        kind: 'Workshop',
        lookup: { table: 'workshop-event', key },
        name: named,
        path: () => `/workshops/${key}`,
      };
    case 'workshop-account':
      return { kind: 'Booking account', name: () => 'Public booking', path: () => null };
    case 'user':
      return {
        kind: 'Login',
        lookup: { table: 'user', key },
        name: named,
        path: (tutorId) => (tutorId ? `/tutor/${tutorId}` : null),
      };
  }
  if (streamId === 'agency-details') return { kind: 'Agency', name: () => 'Settings', path: () => '/settings' };
  return { kind: 'Record', name: () => streamId, path: () => null };
}

/** A person's name from a row's first_name and last_name: "Erased" once either is. */
const person = (alias: string) =>
  `case when ${alias}.first_name = $3 or ${alias}.last_name = $3 then $3 else ${alias}.first_name || ' ' || ${alias}.last_name end`;

/**
 * Each lookup's name and link id, in one query: the family's first contact, the tutor, the
 * engagement's student and tutor (its tutor's id for the link), the consultation's child and date,
 * the family invoice's reference (its family for the link), the workshop's description and date,
 * the login's name (its tutor for the link).
 */
const NAMES = `select w.ord,
  case w.lookup
    when 'client' then (select ${person('ct')} from contacts ct where ct.client_id = w.key order by ct.seq limit 1)
    when 'tutor' then (select ${person('t')} from tutors t where t.id = w.key)
    when 'engagement' then (
      select coalesce(${person('ch')}, 'Unknown') || ' with ' || coalesce(${person('t')}, 'Unknown')
        from engagements e left join children ch on ch.id = e.student_id left join tutors t on t.id = e.tutor_id
       where e.id = w.key)
    when 'consultation' then (
      select coalesce(${person('ch')}, 'Unknown') || ', ' || to_char(c.date, 'DD Mon YYYY')
        from consultations c left join children ch on ch.id = c.child_id where c.id = w.key)
    when 'family-invoice' then (select reference from family_invoices where id = w.key)
    when 'workshop-event' then (
      select description || ', ' || to_char(date_time, 'DD Mon YYYY') from workshop_events where id = w.key)
    when 'user' then (select name from users where id = w.key)
  end as name,
  case w.lookup
    when 'engagement' then (select tutor_id from engagements where id = w.key)
    when 'family-invoice' then (select client_id from family_invoices where id = w.key)
    when 'user' then (select tutor_id from users where id = w.key)
  end as link_id
  from unnest($1::text[], $2::text[]) with ordinality as w(lookup, key, ord)`;

/**
 * The subjects of these streams, named from the read models in one query (whatever their
 * number): a family by its first contact, a tutor, an engagement by its student and tutor, …
 * each with the path of its page.
 */
export async function subjectsOf(db: pg.Pool, streamIds: readonly string[]): Promise<Map<string, ActivitySubjectView>> {
  const ids = [...new Set(streamIds)];
  const parsed = ids.map(parse);
  const lookups = parsed.flatMap((p, index) => (p.lookup ? [{ index, ...p.lookup }] : []));
  const found = new Map<number, { name: string | null; linkId: string | null }>();
  if (lookups.length > 0) {
    const result = await db.query<{ ord: string; name: string | null; link_id: string | null }>(NAMES, [
      lookups.map((lookup) => lookup.table),
      lookups.map((lookup) => lookup.key),
      ERASED,
    ]);
    for (const row of result.rows) {
      const lookup = lookups[Number(row.ord) - 1];
      if (lookup) found.set(lookup.index, { name: row.name, linkId: row.link_id });
    }
  }
  return new Map(
    ids.map((streamId, index) => {
      const subject = parsed[index] as Parsed;
      const row = found.get(index);
      const view = {
        streamId,
        kind: subject.kind,
        name: subject.name(row?.name ?? null),
        path: subject.path(row?.linkId ?? null),
      };
      return [streamId, view];
    }),
  );
}
