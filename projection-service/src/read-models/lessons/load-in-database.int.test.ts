import { randomUUID } from 'node:crypto';
import type { LessonDetails } from '@agency/contracts';
import { type EventStore, type Position, PostgresEventStore } from '@agency/platform';
import { eventsOfTypesUpTo } from '@agency/platform/event-store/postgres/rebuild-read';
import { createTestDatabase } from '@agency/scripts/testing/test-database';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Projection } from '../projection';
import { rebuildReadModels } from '../read-schema';
import { lesson } from '../testing/lesson-details';
import type { GivenEvent } from '../testing/projection-test-bed';
import { lessonsProjection } from './projection';

const metadata = { userId: 'u-test', role: 'admin', commandId: 'c', correlationId: 'c', causationId: 'c' };
const TABLES = ['lessons', 'lesson_history', 'locked_months', 'locked_month_versions'];

/** The handlers alone, one event at a time: what every other way of building must write. */
const eventByEvent: Projection = { ...lessonsProjection, applyBatch: undefined, loadInDatabase: undefined };

/** Timesheet events of one tutor's month, for short. */
function timesheet(month = '2026-03') {
  const tutorId = randomUUID();
  const streamId = `timesheet-${tutorId}-${month}`;
  const event = (type: string, data: Record<string, unknown>) =>
    ({ streamId, type, data: { tutorId, month, ...data } }) as GivenEvent;
  return {
    tutorId,
    recorded: (details: LessonDetails) => event('LessonRecorded', { lesson: details }),
    changed: (details: LessonDetails) => event('LessonChanged', { lesson: details }),
    removed: (details: LessonDetails) => event('LessonRemoved', { lessonId: details.lessonId }),
    repriced: (...lessons: LessonDetails[]) =>
      event('LessonsRepriced', { engagementId: 'e-1', from: '2026-03-01', lessons }),
    locked: (invoiceId: string, other = month) => event('TimesheetMonthLocked', { month: other, invoiceId }),
    unlocked: (invoiceId: string, other = month) => event('TimesheetMonthUnlocked', { month: other, invoiceId }),
  };
}

describe('the lessons loaded by the database from the store’s table (a rebuild)', () => {
  let store: PostgresEventStore;
  let pool: pg.Pool;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const database = await createTestDatabase();
    store = await PostgresEventStore.connect(database.url);
    pool = new pg.Pool({ connectionString: database.url, options: '-c search_path=read' });
    drop = database.drop;
  });
  afterAll(async () => {
    await store.close();
    await pool.end();
    await drop();
  });

  const given = async (...events: GivenEvent[]) => {
    for (const { streamId, type, data } of events) {
      await store.appendToStream(streamId, [{ type, data, metadata }], { expectedRevision: 'any' });
    }
  };
  const storeTable = { only: (types: string[], upTo: Position) => eventsOfTypesUpTo(pool, types, upTo) };
  /** Each load the database finished (one that threw leaves the events to the handlers, silently). */
  const loaded: Position[] = [];
  const watched: Projection = {
    ...lessonsProjection,
    loadInDatabase: async (sql, upTo) => {
      const applied = (await lessonsProjection.loadInDatabase?.(sql, upTo)) ?? 0;
      loaded.push(upTo);
      return applied;
    },
  };
  /** Every row of the lessons' tables once `projection` is rebuilt from `from`, as JSON, sorted. */
  async function rebuilt(projection: Projection, options: { storeTable?: typeof storeTable } = {}, from = store) {
    const { failures } = await rebuildReadModels(pool, from as EventStore, [projection], undefined, options);
    expect(failures).toEqual([]);
    const rows: Record<string, string[]> = {};
    for (const table of TABLES) {
      rows[table] = (await pool.query(`select to_jsonb(t)::text as row from ${table} t order by 1`)).rows.map(
        (row) => row.row,
      );
    }
    return rows;
  }

  it('writes the rows event by event writes, and the events after the head it loaded to are applied on top', async () => {
    const sheet = timesheet();
    const [a, b, c, d] = [lesson(), lesson({ date: '2026-03-03' }), lesson({ date: '2026-03-04' }), lesson()];
    // Values at the edges: quotes, a backslash, emoji, pence up to 2^53 either way, the first day a date holds.
    const odd = lesson({
      lessonId: `l-"q"\\b\\u0000-😀-${randomUUID()}`,
      engagementId: 'e-\u2028\t"\\',
      date: '0001-01-01',
      ratePence: Number.MAX_SAFE_INTEGER,
      amountPence: -Number.MAX_SAFE_INTEGER,
      commissionBp: 2 ** 31 - 1,
      amountEdited: true,
    });
    const invoice = `${sheet.tutorId}_2026-03`;
    await given(
      sheet.recorded(a),
      sheet.recorded(b),
      sheet.recorded(c),
      sheet.recorded(odd),
      sheet.changed({ ...a, amountPence: 5000, amountEdited: true }),
      sheet.repriced({ ...a, amountPence: 5000, amountEdited: true, commissionPence: 1250 }, { ...b, ratePence: 3200 }),
      sheet.removed(b),
      // Removed, then recorded again: a new row, its earlier versions in the history.
      sheet.removed(c),
      sheet.recorded({ ...c, duration: 100 }),
      sheet.repriced({ ...c, duration: 100, ratePence: 3200 }),
      sheet.recorded(d),
      sheet.locked(invoice),
      // A lock on a locked month keeps its invoice; an unlock by another invoice frees nothing.
      sheet.locked(`${invoice}-other`),
      sheet.unlocked(`${invoice}-other`),
      sheet.unlocked(invoice),
      sheet.locked(`${invoice}-again`),
      sheet.locked('i-4', '2026-04'),
      sheet.unlocked('i-4', '2026-04'),
    );
    const head = await store.head();
    // Appended once the rebuild read the head (as if during its load): a lesson the database loaded
    // changed and another removed, a lock, a new lesson.
    await given(
      sheet.changed({ ...a, amountPence: 6000, amountEdited: true }),
      sheet.removed(d),
      sheet.locked('i-5', '2026-05'),
      sheet.recorded(lesson({ date: '2026-03-09' })),
    );
    const expected = await rebuilt(eventByEvent);
    for (const table of TABLES) expect(expected[table]?.length, table).toBeGreaterThan(0);

    const earlier = Object.assign(Object.create(store) as PostgresEventStore, { head: async () => head });
    expect(await rebuilt(watched, { storeTable }, earlier)).toEqual(expected);
    expect(loaded).toEqual([head]);
    // And the whole store at once.
    expect(await rebuilt(watched, { storeTable })).toEqual(expected);
    expect(loaded).toHaveLength(2);
  });

  it('leaves to the handlers what it does not apply as they do, with the same rows', async () => {
    const sheet = timesheet();
    const [twice, again] = [lesson(), lesson()];
    await given(
      // A lesson twice in one repricing.
      sheet.recorded(twice),
      sheet.repriced({ ...twice, ratePence: 3100 }, { ...twice, ratePence: 3200 }),
      // Recorded again without a removal: event by event it overwrites, and keeps no history.
      sheet.recorded(again),
      sheet.recorded({ ...again, duration: 60 }),
    );
    const expected = await rebuilt(eventByEvent);
    loaded.length = 0;
    expect(await rebuilt(watched, { storeTable })).toEqual(expected);
    expect(loaded).toEqual([]);
  });
});
