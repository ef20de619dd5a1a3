import { currentEventVersions, personalDataRules } from '@agency/contracts';
import type { Position, RecordedEvent } from '@agency/platform';
import type pg from 'pg';

/** The events that store a lesson's full values (a repricing several lessons'). */
const STORED_TYPES = ['LessonRecorded', 'LessonChanged', 'LessonsRepriced'];
const LOCK_TYPES = ['TimesheetMonthLocked', 'TimesheetMonthUnlocked'];
/** Read whole (but changes, of which only the type and position): few. */
const OTHER_TYPES = ['LessonChanged', 'LessonRemoved', 'LessonsRepriced', ...LOCK_TYPES];

/** Why the database cannot load these events as the projection's handlers would apply them. */
export class NotLoadableInDatabase extends Error {}

/**
 * True when the event's payload is the one the store's reader would hand out as it is: no upcast
 * (its stored version, absent meaning 1, is at least its type's current one) and nothing sealed.
 */
function storedAsRead(types: readonly string[]) {
  const current = types.map((type) => `when '${type}' then ${currentEventVersions.get(type) ?? 1}`).join(' ');
  return `(case when e.metadata->'schemaVersion' is null or jsonb_typeof(e.metadata->'schemaVersion') = 'null' then 1
                when jsonb_typeof(e.metadata->'schemaVersion') = 'number' then (e.metadata->>'schemaVersion')::numeric
           end) >= (case e.event_type ${current} end)`;
}

/** The recorded time the store's reader hands out (milliseconds, as postgres-date truncates them). */
const RECORDED_AT = `case when jsonb_typeof(e.metadata->'recordedAt') = 'string' then (e.metadata->>'recordedAt')::timestamptz
                          else date_trunc('milliseconds', e.recorded_at) end`;

const UP_TO = '(e.transaction_id, e.global_position) <= ($1::text::xid8, $2::bigint)';

/** The lesson's numbers, which the handlers read as JavaScript numbers. */
const NUMBERS = [
  'duration',
  'ratePence',
  'amountPence',
  'commissionBp',
  'commissionPence',
  'partnerBp',
  'partnerCommissionPence',
];

/**
 * Only a write whose fields read as the handlers read them is loaded here (any other has no id, so
 * the load fails and its events go to the handlers): its keys JSON strings (jsonb prints a number
 * `7.0` or an object otherwise than JSON.stringify), and each number, when it is a JSON number,
 * exactly a JavaScript one (JSON.parse rounds 2^53 + 1; the database would not).
 */
const READ_AS_HANDLERS = [
  `jsonb_typeof(x.l) = 'object'`,
  ...['lessonId', 'engagementId', 'studentId'].map((key) => `jsonb_typeof(x.l->'${key}') = 'string'`),
  ...['tutorId', 'month'].map((key) => `jsonb_typeof(e.data->'${key}') = 'string'`),
  ...NUMBERS.map(
    (key) =>
      `(jsonb_typeof(x.l->'${key}') <> 'number' or abs((x.l->>'${key}')::numeric) <= ${Number.MAX_SAFE_INTEGER})`,
  ),
].join(' and ');

/** A lesson's values, as the handlers' upsert writes them, from a write's lesson `x.l` of event `e`. */
const LESSON_ROW = `case when ${storedAsRead(STORED_TYPES)} and ${READ_AS_HANDLERS} then x.l->>'lessonId' end,
  e.data->>'tutorId', e.data->>'month', x.l->>'engagementId', x.l->>'studentId', (x.l->>'date')::date,
  (x.l->>'duration')::bigint, (x.l->>'ratePence')::bigint, (x.l->>'amountPence')::bigint,
  (x.l->>'amountEdited')::boolean, (x.l->>'commissionBp')::int, (x.l->>'commissionPence')::bigint,
  (x.l->>'partnerBp')::int, (x.l->>'partnerCommissionPence')::bigint,
  e.transaction_id::text::bigint, e.global_position, ${RECORDED_AT}`;

const LESSON_COLUMNS = `id, tutor_id, month, engagement_id, student_id, date, duration_hundredths, rate_pence, amount_pence,
  amount_edited, commission_bp, commission_pence, partner_bp, partner_commission_pence, valid_from_commit,
  valid_from_prepare, recorded_at`;

/**
 * Every lesson event up to `upTo`, applied by the database from `es.events`: a rebuild's lessons
 * without shipping a million events to Node and a million rows back (the rebuild's critical path
 * was this projection: decoding, an upsert per batch, its garbage). The rules are the handlers'
 * (projection.ts), event by event, but in the order that costs least:
 *
 * 1. every write that stores a lesson (a recording, a change, each lesson of a repricing) becomes
 *    a row of `lessons`, in one pass over the table and without its primary key (made at the end,
 *    one sort instead of a million insertions);
 * 2. the few other events (removals, repricings, month locks, and where changes are) are read;
 * 3. for each lesson changed, repriced or removed, its writes in order of position: every row a
 *    later write replaces leaves `lessons`, into the history (held until that write) unless that
 *    write is a new recording, which finds no row event by event (a lesson recorded twice and
 *    none of these is left twice in `lessons`: its primary key then fails, and the load with it).
 *
 * Anything the handlers would read otherwise than these statements do makes it throw, and the
 * transaction is undone (so the caller applies the events as ever): a payload of an older version
 * or not of the expected shape, a lesson twice in one repricing, or a lesson whose tutor, month,
 * engagement or student differs between its writes (the upsert keeps the first; here the last).
 */
async function loadLessons(sql: pg.ClientBase, upTo: Position): Promise<number> {
  const bound = [upTo.commit.toString(), upTo.prepare.toString()];
  await sql.query('alter table lessons drop constraint lessons_pkey');
  const written = await sql.query(
    `insert into lessons (${LESSON_COLUMNS})
     select ${LESSON_ROW}
       from es.events e
       cross join lateral (
         select e.data->'lesson' as l where e.event_type in ('LessonRecorded', 'LessonChanged')
         union all
         select r.l from jsonb_array_elements(
           case when e.event_type = 'LessonsRepriced' and jsonb_typeof(e.data->'lessons') = 'array'
                then e.data->'lessons' end) as r (l)
       ) x
      where e.event_type = any($3::text[]) and ${UP_TO}`,
    [...bound, STORED_TYPES],
  );
  await sql.query(
    `create temporary table lesson_events_read on commit drop as
     select e.transaction_id::text::bigint as c, e.global_position as p, e.event_type as t,
            case when e.event_type <> 'LessonChanged' then e.data end as data,
            case when e.event_type = 'LessonChanged' then e.data->'lesson'->>'lessonId' end as changed,
            ${RECORDED_AT} as at,
            -- As the store's reader hands it out to the handlers: the metadata's own text, or the column's.
            case when jsonb_typeof(e.metadata->'recordedAt') = 'string' then e.metadata->>'recordedAt'
                 else to_char(date_trunc('milliseconds', e.recorded_at) at time zone 'UTC',
                              'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') end as at_text,
            ${storedAsRead(OTHER_TYPES)} and case e.event_type
              when 'LessonChanged' then true
              when 'LessonRemoved' then jsonb_typeof(e.data->'lessonId') = 'string'
              when 'LessonsRepriced' then jsonb_typeof(e.data->'lessons') = 'array'
              else jsonb_typeof(e.data->'tutorId') = 'string' and jsonb_typeof(e.data->'month') = 'string'
                   and jsonb_typeof(e.data->'invoiceId') = 'string' end as readable
       from es.events e
      where e.event_type = any($3::text[]) and ${UP_TO}`,
    [...bound, OTHER_TYPES],
  );
  // Its statistics, or the statement below plans blind: it sorted every lesson to join them to it.
  await sql.query('analyze lesson_events_read');
  const moved = await sql.query<{ unreadable: string; twice: string; mixed: string }>(
    `with again as (
       select changed as id from lesson_events_read where t = 'LessonChanged'
       union
       select data->>'lessonId' from lesson_events_read where t = 'LessonRemoved'
       union
       select jsonb_array_elements(data->'lessons')->>'lessonId' from lesson_events_read where t = 'LessonsRepriced'
     ),
     mine as materialized (
       select l.ctid as row, l.id, l.valid_from_commit as c, l.valid_from_prepare as p, l.recorded_at as at,
              l.tutor_id, l.month, l.engagement_id, l.student_id
         from lessons l where l.id in (select id from again)
     ),
     writes as (
       select m.row, m.id, m.c, m.p, m.at, coalesce(r.t, 'LessonRecorded') as t, m.tutor_id, m.month,
              m.engagement_id, m.student_id
         from mine m left join lesson_events_read r on r.p = m.p
       union all
       select null, r.data->>'lessonId', r.c, r.p, r.at, r.t, null, null, null, null
         from lesson_events_read r where r.t = 'LessonRemoved'
     ),
     ordered as materialized (
       select w.*, lead(w.c) over n as nc, lead(w.p) over n as np, lead(w.at) over n as nat, lead(w.t) over n as nt
         from writes w window n as (partition by w.id order by w.c, w.p)
     ),
     gone as (
       delete from lessons where ctid = any(array(select row from ordered where nc is not null))
       returning ctid as row, *
     ),
     kept as (
       insert into lesson_history (${LESSON_COLUMNS}, valid_to_commit, valid_to_prepare, to_recorded_at)
       select ${LESSON_COLUMNS.replaceAll(/(\w+)/g, 'g.$1')}, o.nc, o.np, o.nat
         from gone g join ordered o on o.row = g.row where o.nt <> 'LessonRecorded'
     )
     select (select count(*) from lesson_events_read where not readable) as unreadable,
            (select count(*) from (select 1 from ordered group by id, c, p having count(*) > 1) d) as twice,
            (select count(*) from (select 1 from ordered where row is not null group by id
               having count(distinct (tutor_id, month, engagement_id, student_id)) > 1) d) as mixed`,
  );
  const checks = moved.rows[0] as { unreadable: string; twice: string; mixed: string };
  if (Number(checks.unreadable) > 0) throw new NotLoadableInDatabase(`${checks.unreadable} event(s) read otherwise`);
  if (Number(checks.twice) > 0) throw new NotLoadableInDatabase(`${checks.twice} lesson(s) twice in a repricing`);
  if (Number(checks.mixed) > 0) throw new NotLoadableInDatabase(`${checks.mixed} lesson(s) moved between writes`);
  await sql.query('alter table lessons add primary key (id)');
  return written.rowCount ?? 0;
}

/** The month locks up to `upTo` (read by loadLessons) as the store's reader hands them out: few, one per invoiced month. */
async function readLocks(sql: pg.ClientBase): Promise<RecordedEvent[]> {
  const result = await sql.query(
    `select c::text as commit, p::text as prepare, t as type, data, at_text as recorded_at
       from lesson_events_read
      where t = any($1::text[]) order by c, p`,
    [LOCK_TYPES],
  );
  // Only what the lock rules read (applyMonthLocks, writeVersions): type, payload, position, recorded time.
  return result.rows.map(
    (row) =>
      ({
        type: row.type,
        data: row.data,
        position: { commit: BigInt(row.commit), prepare: BigInt(row.prepare) },
        metadata: { recordedAt: row.recorded_at },
      }) as RecordedEvent,
  );
}

/**
 * The lessons projection's rebuild from the PostgreSQL store's table: the lesson events by one
 * statement (loadLessons), the month locks by the handlers' own batch rules (`applyMonthLocks`).
 */
export async function loadLessonsInDatabase(
  sql: pg.ClientBase,
  upTo: Position,
  applyMonthLocks: (sql: pg.ClientBase, events: RecordedEvent[]) => Promise<unknown>,
  handled: readonly string[],
): Promise<number> {
  // A sealed field is opened by the personal-data layer only, never by the database.
  if ([...STORED_TYPES, ...OTHER_TYPES].some((type) => personalDataRules[type])) {
    throw new NotLoadableInDatabase('a lesson event has a sealed field');
  }
  // A type the projection came to handle that these statements do not read: its events would be
  // passed over while the checkpoint moves past them.
  const unread = handled.filter((type) => !STORED_TYPES.includes(type) && !OTHER_TYPES.includes(type));
  if (unread.length > 0) throw new NotLoadableInDatabase(`the projection handles ${unread.join(', ')} too`);
  const lessons = await loadLessons(sql, upTo);
  const locks = await readLocks(sql);
  await applyMonthLocks(sql, locks);
  return lessons + locks.length;
}
