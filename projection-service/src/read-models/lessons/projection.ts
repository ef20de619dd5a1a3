import type { LessonDetails, LessonEvent } from '@agency/contracts';
import type { RecordedEvent } from '@agency/platform';
import type pg from 'pg';
import { defineProjection, type TypedHandlers } from '../projection';
import { snapshotVersion, type Version, type VersionTable, writeVersions } from '../versions';
import { loadLessonsInDatabase } from './load-in-database';

type WithLesson = { tutorId: string; month: string; lesson: LessonDetails };
type MonthLock = { tutorId: string; month: string; invoiceId: string };

/**
 * What an event writes to one lesson: its values (recorded, changed, repriced) or its removal
 * (`values` null). A repricing writes several lessons at once.
 */
type LessonWrite = { id: string; event: RecordedEvent; values: WithLesson | null };

function writesOf(event: RecordedEvent): LessonWrite[] {
  const typed = event as unknown as LessonEvent;
  switch (typed.type) {
    case 'LessonRemoved':
      return [{ id: typed.data.lessonId, event, values: null }];
    case 'LessonsRepriced': {
      const { tutorId, month, lessons } = typed.data;
      return lessons.map((lesson) => ({ id: lesson.lessonId, event, values: { tutorId, month, lesson } }));
    }
    case 'LessonRecorded':
    case 'LessonChanged':
      return [{ id: typed.data.lesson.lessonId, event, values: typed.data }];
    default:
      return [];
  }
}

/** The columns of a lesson, in `lessons`' order, and its values from an event. */
const LESSON_COLUMNS = [
  ['id', 'text'],
  ['tutor_id', 'text'],
  ['month', 'text'],
  ['engagement_id', 'text'],
  ['student_id', 'text'],
  ['date', 'date'],
  ['duration_hundredths', 'bigint'],
  ['rate_pence', 'bigint'],
  ['amount_pence', 'bigint'],
  ['amount_edited', 'boolean'],
  ['commission_bp', 'int'],
  ['commission_pence', 'bigint'],
  ['partner_bp', 'int'],
  ['partner_commission_pence', 'bigint'],
] as const;
const valuesOf = ({ tutorId, month, lesson }: WithLesson) => [
  lesson.lessonId,
  tutorId,
  month,
  lesson.engagementId,
  lesson.studentId,
  lesson.date,
  lesson.duration,
  lesson.ratePence,
  lesson.amountPence,
  lesson.amountEdited,
  lesson.commissionBp,
  lesson.commissionPence,
  lesson.partnerBp,
  lesson.partnerCommissionPence,
];
const position = (event: RecordedEvent) => [event.position.commit.toString(), event.position.prepare.toString()];

/**
 * Lesson events carry the lesson's full values, so recording, changing and repricing all
 * overwrite; the row keeps the position of the event that wrote it (from which it holds) and
 * that event's recorded time. Any number of lessons (distinct ids) in one statement: a rebuild
 * writes a batch's lessons at once.
 */
function upsertLessons(sql: pg.ClientBase, writes: (LessonWrite & { values: WithLesson })[]) {
  const columns = [...LESSON_COLUMNS, ['valid_from_commit', 'bigint'], ['valid_from_prepare', 'bigint']] as const;
  // One JSON parameter, one object per lesson, instead of a text array per column: the array
  // parameters were serialised element by element in JavaScript (pg's escapeElement, 3.5 % of a
  // rebuild's profile, and its garbage); JSON.stringify is native, PostgreSQL parses it in one pass.
  const rows = writes.map(({ event, values: { tutorId, month, lesson } }) => {
    // An object literal of one shape (V8 makes and serialises those fastest), its keys `columns`.
    const row = {
      id: lesson.lessonId,
      tutor_id: tutorId,
      month,
      engagement_id: lesson.engagementId,
      student_id: lesson.studentId,
      date: lesson.date,
      duration_hundredths: lesson.duration,
      rate_pence: lesson.ratePence,
      amount_pence: lesson.amountPence,
      amount_edited: lesson.amountEdited,
      commission_bp: lesson.commissionBp,
      commission_pence: lesson.commissionPence,
      partner_bp: lesson.partnerBp,
      partner_commission_pence: lesson.partnerCommissionPence,
      valid_from_commit: event.position.commit.toString(),
      valid_from_prepare: event.position.prepare.toString(),
      recorded_at: event.metadata.recordedAt,
    } satisfies Record<(typeof columns)[number][0] | 'recorded_at', unknown>;
    return row;
  });
  return sql.query(
    `insert into lessons (${columns.map(([column]) => column).join(', ')}, recorded_at)
     select ${columns.map(([column]) => column).join(', ')}, recorded_at
       from json_to_recordset($1::json)
         as r (${columns.map(([column, type]) => `${column} ${type}`).join(', ')}, recorded_at timestamptz)
     on conflict (id) do update set date = excluded.date, duration_hundredths = excluded.duration_hundredths,
       rate_pence = excluded.rate_pence, amount_pence = excluded.amount_pence, amount_edited = excluded.amount_edited,
       commission_bp = excluded.commission_bp, commission_pence = excluded.commission_pence,
       partner_bp = excluded.partner_bp, partner_commission_pence = excluded.partner_commission_pence,
       valid_from_commit = excluded.valid_from_commit, valid_from_prepare = excluded.valid_from_prepare,
       recorded_at = excluded.recorded_at`,
    [JSON.stringify(rows)],
  );
}

/**
 * The history of lessons (050_lesson_versions.sql), for the views as of a past moment: every
 * version of a lesson that a later event replaced or removed, with the positions between which it
 * held. The current version is the row in `lessons` itself (a million lessons, almost all never
 * changed: their one version is not written twice). `superseded` holds, for each lesson whose
 * row is about to be replaced or removed, the write that does it: its row goes to the history;
 * `replacedInBatch`, the versions writes make that later writes of the same run replace.
 */
async function keepHistory(
  sql: pg.ClientBase,
  superseded: LessonWrite[],
  replacedInBatch: { from: LessonWrite & { values: WithLesson }; to: LessonWrite }[],
) {
  const columns = LESSON_COLUMNS.map(([column]) => column).join(', ');
  if (superseded.length > 0) {
    await sql.query(
      `insert into lesson_history (${columns}, valid_from_commit, valid_from_prepare, recorded_at,
         valid_to_commit, valid_to_prepare, to_recorded_at)
       select ${LESSON_COLUMNS.map(([column]) => `l.${column}`).join(', ')}, l.valid_from_commit, l.valid_from_prepare,
              l.recorded_at, s.valid_to_commit, s.valid_to_prepare, s.to_recorded_at
         from unnest($1::text[], $2::bigint[], $3::bigint[], $4::timestamptz[])
              as s (id, valid_to_commit, valid_to_prepare, to_recorded_at)
         join lessons l on l.id = s.id`,
      [
        superseded.map(({ id }) => id),
        superseded.map(({ event }) => position(event)[0]),
        superseded.map(({ event }) => position(event)[1]),
        superseded.map(({ event }) => event.metadata.recordedAt),
      ],
    );
  }
  if (replacedInBatch.length > 0) {
    const n = LESSON_COLUMNS.length;
    await sql.query(
      `insert into lesson_history (${columns}, valid_from_commit, valid_from_prepare, recorded_at,
         valid_to_commit, valid_to_prepare, to_recorded_at)
       select * from unnest(${LESSON_COLUMNS.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ')},
         $${n + 1}::bigint[], $${n + 2}::bigint[], $${n + 3}::timestamptz[],
         $${n + 4}::bigint[], $${n + 5}::bigint[], $${n + 6}::timestamptz[])`,
      [
        ...LESSON_COLUMNS.map((_, i) => replacedInBatch.map(({ from }) => valuesOf(from.values)[i])),
        replacedInBatch.map(({ from }) => position(from.event)[0]),
        replacedInBatch.map(({ from }) => position(from.event)[1]),
        replacedInBatch.map(({ from }) => from.event.metadata.recordedAt),
        replacedInBatch.map(({ to }) => position(to.event)[0]),
        replacedInBatch.map(({ to }) => position(to.event)[1]),
        replacedInBatch.map(({ to }) => to.event.metadata.recordedAt),
      ],
    );
  }
}

const lockMonth = (sql: pg.ClientBase, { tutorId, month, invoiceId }: MonthLock) =>
  sql.query('insert into locked_months (tutor_id, month, invoice_id) values ($1, $2, $3) on conflict do nothing', [
    tutorId,
    month,
    invoiceId,
  ]);
const unlockMonth = (sql: pg.ClientBase, { tutorId, month, invoiceId }: MonthLock) =>
  sql.query('delete from locked_months where tutor_id = $1 and month = $2 and invoice_id = $3', [
    tutorId,
    month,
    invoiceId,
  ]);

/** The versions of month locks (050_lesson_versions.sql), for views as of a past moment. */
const LOCKED_MONTH_VERSIONS: VersionTable = {
  name: 'locked_month_versions',
  key: [
    ['tutor_id', 'text'],
    ['month', 'text'],
  ],
  values: [['invoice_id', 'text']],
};

/** A month lock's version after a lock or unlock event: the row as it is now (a lock on a locked month changes nothing). */
const lockVersion = (sql: pg.ClientBase, event: RecordedEvent) => {
  const { tutorId, month } = event.data as MonthLock;
  return snapshotVersion(sql, LOCKED_MONTH_VERSIONS, 'locked_months', [tutorId, month], event);
};

const isLessonEvent = (event: RecordedEvent) =>
  event.type === 'LessonRecorded' ||
  event.type === 'LessonChanged' ||
  event.type === 'LessonRemoved' ||
  event.type === 'LessonsRepriced';

const isStored = (write: LessonWrite): write is LessonWrite & { values: WithLesson } => write.values !== null;

/**
 * Lesson events at once (one or a batch): every version they replace goes to the history (the
 * rows the table holds, replaced by each lesson's first write here; and the versions the writes
 * make and replace among themselves, so a moment inside a batch is seen as it was); then each
 * lesson's last values in one upsert, the lessons removed (and not recorded again later) in one
 * delete, run first.
 */
async function applyLessonEvents(sql: pg.ClientBase, events: RecordedEvent[]) {
  const upserts = new Map<string, LessonWrite & { values: WithLesson }>();
  const removed = new Set<string>();
  const first = new Map<string, LessonWrite>();
  const latest = new Map<string, LessonWrite>();
  const replaced: { from: LessonWrite & { values: WithLesson }; to: LessonWrite }[] = [];
  for (const write of events.flatMap(writesOf)) {
    const before = latest.get(write.id);
    if (!before) first.set(write.id, write);
    // A new recording of a lesson keeps no history of the row it overwrites, as event by event
    // (where it finds no row to supersede: see below).
    else if (isStored(before) && write.event.type !== 'LessonRecorded') replaced.push({ from: before, to: write });
    latest.set(write.id, write);
    if (isStored(write)) upserts.set(write.id, write);
    else {
      upserts.delete(write.id);
      removed.add(write.id);
    }
  }
  // A lesson recorded finds no row (the timesheet refuses to record a lesson it holds, and a
  // removal deletes the row): only a change, a repricing or a removal replaces what the table holds.
  const superseded = [...first.values()].filter(({ event }) => event.type !== 'LessonRecorded');
  await keepHistory(sql, superseded, replaced);
  if (removed.size > 0) await sql.query('delete from lessons where id = any($1::text[])', [[...removed]]);
  if (upserts.size > 0) await upsertLessons(sql, [...upserts.values()]);
}

const isLockEvent = (event: RecordedEvent) =>
  event.type === 'TimesheetMonthLocked' || event.type === 'TimesheetMonthUnlocked';

/**
 * Month locks at once, by the rules of the handlers above: the months they name read in one
 * query, each event folded in memory (a lock on a locked month keeps its invoice; an unlock
 * frees only the invoice that holds it) with its version, then each month's last state written
 * (a rebuild has one lock per tutor's invoiced month: 7,000 at scale, two statements each).
 */
async function applyMonthLocks(sql: pg.ClientBase, events: RecordedEvent[]) {
  if (events.length === 0) return;
  const keyOf = ({ tutorId, month }: { tutorId: string; month: string }) => JSON.stringify([tutorId, month]);
  const named = new Map(events.map((event) => [keyOf(event.data as MonthLock), event.data as MonthLock]));
  const found = await sql.query(
    `select l.tutor_id, l.month, l.invoice_id from locked_months l
       join unnest($1::text[], $2::text[]) as k (tutor_id, month) on l.tutor_id = k.tutor_id and l.month = k.month`,
    [[...named.values()].map((lock) => lock.tutorId), [...named.values()].map((lock) => lock.month)],
  );
  const held = new Map<string, string | null>(
    found.rows.map((row) => [keyOf({ tutorId: row.tutor_id, month: row.month }), row.invoice_id]),
  );
  const versions: Version[] = [];
  for (const event of events) {
    const lock = event.data as MonthLock;
    const key = keyOf(lock);
    const now = held.get(key) ?? null;
    if (event.type === 'TimesheetMonthLocked') held.set(key, now ?? lock.invoiceId);
    else if (now === lock.invoiceId) held.set(key, null);
    const after = held.get(key) ?? null;
    versions.push({ key: [lock.tutorId, lock.month], values: after === null ? null : [after], event });
  }
  const months = [...named.entries()];
  await sql.query(
    'delete from locked_months l using unnest($1::text[], $2::text[]) as k (tutor_id, month) where l.tutor_id = k.tutor_id and l.month = k.month',
    [months.map(([, lock]) => lock.tutorId), months.map(([, lock]) => lock.month)],
  );
  const locked = months.filter(([key]) => held.get(key));
  await sql.query(
    'insert into locked_months (tutor_id, month, invoice_id) select * from unnest($1::text[], $2::text[], $3::text[])',
    [
      locked.map(([, lock]) => lock.tutorId),
      locked.map(([, lock]) => lock.month),
      locked.map(([key]) => held.get(key)),
    ],
  );
  await writeVersions(sql, LOCKED_MONTH_VERSIONS, versions);
}

/** A batch at once: its lesson events together (applyLessonEvents), its month locks together (applyMonthLocks). */
async function applyLessonBatch(sql: pg.ClientBase, events: RecordedEvent[]) {
  await applyLessonEvents(sql, events.filter(isLessonEvent));
  await applyMonthLocks(sql, events.filter(isLockEvent));
}

/** What each event does to the lessons, event by event (the live rule every batch rule keeps). */
const handlers: TypedHandlers<LessonEvent> = {
  LessonRecorded: (sql, event) => applyLessonEvents(sql, [event as RecordedEvent]),
  LessonChanged: (sql, event) => applyLessonEvents(sql, [event as RecordedEvent]),
  LessonRemoved: (sql, event) => applyLessonEvents(sql, [event as RecordedEvent]),
  LessonsRepriced: (sql, event) => applyLessonEvents(sql, [event as RecordedEvent]),
  TimesheetMonthLocked: async (sql, event) => {
    await lockMonth(sql, event.data);
    await lockVersion(sql, event as RecordedEvent);
  },
  TimesheetMonthUnlocked: async (sql, event) => {
    await unlockMonth(sql, event.data);
    await lockVersion(sql, event as RecordedEvent);
  },
};

export const lessonsProjection = defineProjection<LessonEvent>({
  name: 'lessons',
  version: 3,
  migrations: ['007_lessons.sql', '040_lessons_paging.sql', '050_lesson_versions.sql'],
  handlers,
  applyBatch: applyLessonBatch,
  // Looked up by id only (the history never): a million rows, loaded without their other indexes.
  bulkTables: ['lessons', 'lesson_history'],
  // A rebuild's million lesson events, applied by the database from the store's table (load-in-database.ts).
  loadInDatabase: (sql, upTo) => loadLessonsInDatabase(sql, upTo, applyMonthLocks, Object.keys(handlers)),
});
