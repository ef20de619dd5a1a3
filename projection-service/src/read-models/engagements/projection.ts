import type { EngagementEvent } from '@agency/contracts';
import { engagement } from '@agency/domain';
import type { RecordedEvent } from '@agency/platform';
import type pg from 'pg';
import { defineProjection, type RecordedEventOf } from '../projection';
import { type VersionTable, writeVersions } from '../versions';

type EngagementState = ReturnType<typeof engagement.initialState>;

/**
 * An engagement's state after `recorded`, and its summary, or undefined when there is nothing to
 * write (no summary or no period yet): then the stored state stays as it was, event by event too.
 */
function evolved(state: EngagementState, recorded: RecordedEventOf<EngagementEvent>) {
  const next = engagement.evolve(state, recorded);
  const summary = engagement.summaryOf(next);
  const latest = summary?.periods[summary.periods.length - 1];
  return summary && latest ? { state: next, summary, latest } : undefined;
}
type Written = NonNullable<ReturnType<typeof evolved>>;

/**
 * Writes engagements at their folded states, set-based: their current terms (a new row keeps the
 * tutor and student it was made with), their history periods (replaced) and which tutor teaches
 * which child (tutor_students).
 */
async function write(sql: pg.ClientBase, engagements: Map<string, Written>) {
  const rows = [...engagements.entries()];
  const ids = rows.map(([id]) => id);
  const column = <T>(value: (row: Written) => T) => rows.map(([, row]) => value(row));
  await sql.query(
    `insert into engagements (id, tutor_id, student_id, start_date, end_date, rate_pence, commission_bp, partner_bp, subjects, state)
     select * from unnest($1::text[], $2::text[], $3::text[], $4::date[], $5::date[], $6::bigint[], $7::int[], $8::int[],
       $9::jsonb[], $10::jsonb[])
     on conflict (id) do update set start_date = excluded.start_date, end_date = excluded.end_date,
       rate_pence = excluded.rate_pence, commission_bp = excluded.commission_bp, partner_bp = excluded.partner_bp,
       subjects = excluded.subjects, state = excluded.state`,
    [
      ids,
      column((row) => row.summary.tutorId),
      column((row) => row.summary.studentId),
      column((row) => row.summary.startDate),
      column((row) => row.summary.endDate),
      column((row) => row.latest.ratePence),
      column((row) => row.latest.commissionBp),
      column((row) => row.latest.partnerBp),
      column((row) => JSON.stringify(row.latest.subjects)),
      column((row) => JSON.stringify(row.state)),
    ],
  );
  await sql.query('delete from engagement_periods where engagement_id = any($1::text[])', [ids]);
  const periods = rows.flatMap(([id, row]) => row.summary.periods.map((period) => ({ id, period })));
  await sql.query(
    `insert into engagement_periods (engagement_id, start_date, end_date, rate_pence, commission_bp, partner_bp, subjects)
     select * from unnest($1::text[], $2::date[], $3::date[], $4::bigint[], $5::int[], $6::int[], $7::jsonb[])`,
    [
      periods.map(({ id }) => id),
      periods.map(({ period }) => period.startDate),
      periods.map(({ period }) => period.endDate),
      periods.map(({ period }) => period.ratePence),
      periods.map(({ period }) => period.commissionBp),
      periods.map(({ period }) => period.partnerBp),
      periods.map(({ period }) => JSON.stringify(period.subjects)),
    ],
  );
  await sql.query(
    `insert into tutor_students (tutor_id, child_id, engagement_id, current)
     select * from unnest($1::text[], $2::text[], $3::text[], $4::boolean[])
     on conflict (engagement_id) do update set current = excluded.current`,
    [
      column((row) => row.summary.tutorId),
      column((row) => row.summary.studentId),
      ids,
      column((row) => row.summary.endDate === null),
    ],
  );
}

/** The versions of engagements' rows (051_engagement_versions.sql), for the details as of a past moment. */
const ENGAGEMENT_VERSIONS: VersionTable = {
  name: 'engagement_versions',
  key: [['id', 'text']],
  values: [
    ['tutor_id', 'text'],
    ['student_id', 'text'],
    ['start_date', 'date'],
    ['end_date', 'date'],
    ['rate_pence', 'bigint'],
    ['commission_bp', 'int'],
    ['partner_bp', 'int'],
    ['subjects', 'jsonb'],
    ['state', 'jsonb'],
  ],
};

/**
 * Each event's version of its engagement's row: the values `write` gives the row (an engagement's
 * tutor and student are those it started with, which the upsert keeps and the summary repeats).
 */
const writeEngagementVersions = (sql: pg.ClientBase, written: [RecordedEvent, Written][]) =>
  writeVersions(
    sql,
    ENGAGEMENT_VERSIONS,
    written.map(([event, row]) => ({
      key: [row.summary.engagementId],
      values: [
        row.summary.tutorId,
        row.summary.studentId,
        row.summary.startDate,
        row.summary.endDate,
        row.latest.ratePence,
        row.latest.commissionBp,
        row.latest.partnerBp,
        JSON.stringify(row.latest.subjects),
        JSON.stringify(row.state),
      ],
      event,
    })),
  );

/** The stored states of these engagements (the initial state for those not stored yet). */
async function statesOf(sql: pg.ClientBase, ids: string[]) {
  const found = await sql.query('select id, state from engagements where id = any($1::text[])', [ids]);
  const states = new Map<string, EngagementState>(found.rows.map((row) => [row.id, row.state]));
  return (id: string) => states.get(id) ?? engagement.initialState();
}

/**
 * Folds each engagement with the domain's own `evolve`, then writes its current terms, its
 * history periods, and which tutor teaches which child (tutor_students).
 */
async function project(sql: pg.ClientBase, recorded: RecordedEventOf<EngagementEvent>) {
  const id = recorded.data.engagementId;
  const written = evolved((await statesOf(sql, [id]))(id), recorded);
  if (!written) return;
  await write(sql, new Map([[id, written]]));
  await writeEngagementVersions(sql, [[recorded as unknown as RecordedEvent, written]]);
}

/**
 * A batch at once: every engagement it names read in one query, folded in memory event by event
 * (an event with nothing to write leaves the state as event by event does), and written once.
 */
async function applyEngagementBatch(sql: pg.ClientBase, events: RecordedEvent[]) {
  const mine = events.filter((event) =>
    Object.hasOwn(engagementsProjection.handlers, event.type),
  ) as unknown as RecordedEventOf<EngagementEvent>[];
  if (mine.length === 0) return;
  const stored = await statesOf(sql, [...new Set(mine.map((event) => event.data.engagementId))]);
  const written = new Map<string, Written>();
  // Every event's version, not only each engagement's last: a moment inside the batch is seen as it was.
  const versions: [RecordedEvent, Written][] = [];
  for (const event of mine) {
    const id = event.data.engagementId;
    const next = evolved(written.get(id)?.state ?? stored(id), event);
    if (next) {
      written.set(id, next);
      versions.push([event as unknown as RecordedEvent, next]);
    }
  }
  if (written.size > 0) await write(sql, written);
  await writeEngagementVersions(sql, versions);
}

export const engagementsProjection = defineProjection<EngagementEvent>({
  name: 'engagements',
  version: 2,
  migrations: ['004_tutor_students.sql', '006_engagements.sql', '051_engagement_versions.sql'],
  handlers: {
    EngagementStarted: project,
    EngagementRatesChanged: project,
    EngagementSubjectsChanged: project,
    EngagementPeriodCorrected: project,
    EngagementEnded: project,
  },
  applyBatch: applyEngagementBatch,
});
