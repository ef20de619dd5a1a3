import { randomUUID } from 'node:crypto';
import { type EventStore, type Position, PostgresEventStore } from '@agency/platform';
import { eventsOfTypesUpTo } from '@agency/platform/event-store/postgres/rebuild-read';
import { createTestDatabase } from '@agency/scripts/testing/test-database';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { Projection } from '../projection';
import { rebuildReadModels } from '../read-schema';
import { lessonsProjection } from './projection';

const META = { userId: 'u-test', role: 'admin', commandId: 'c', correlationId: 'c', causationId: 'c' };
const TABLES = ['lessons', 'lesson_history', 'locked_months', 'locked_month_versions'];
const eventByEvent: Projection = { ...lessonsProjection, applyBatch: undefined, loadInDatabase: undefined };

/** A lesson as JSON text, so values JSON.stringify cannot write (2^53 + 1, 7.0) can be stored. */
const lessonJson = (o: Record<string, string> = {}) => {
  const v: Record<string, string> = {
    lessonId: JSON.stringify(randomUUID()),
    engagementId: '"e-1"',
    studentId: '"s-1"',
    date: '"2026-03-02"',
    duration: '150',
    ratePence: '3000',
    amountPence: '4500',
    amountEdited: 'false',
    commissionBp: '2500',
    commissionPence: '1125',
    partnerBp: '1000',
    partnerCommissionPence: '113',
    ...o,
  };
  return `{${Object.entries(v)
    .map(([k, x]) => `"${k}":${x}`)
    .join(',')}}`;
};

type Raw = { type: string; data: string; meta?: Record<string, unknown> };

/**
 * The lessons projection rebuilt from a store of `build`'s events twice, event by event (the
 * handlers alone) and as `npm run rebuild` does (the database's load from the store's table): the
 * same rows in its four tables, the same failures. Answers whether the database's load was used
 * (and checks that it was said when it was not).
 */
async function compare(build: (tutor: string) => Raw[]): Promise<boolean> {
  const database = await createTestDatabase();
  const store = await PostgresEventStore.connect(database.url);
  const pool = new pg.Pool({ connectionString: database.url, options: '-c search_path=read' });
  try {
    const tutor = randomUUID();
    for (const e of build(tutor)) {
      await pool.query('select * from es.append_to_stream($1, -2, $2, $3, $4, $5)', [
        `timesheet-${tutor}`,
        [randomUUID()],
        [e.type],
        [e.data],
        [JSON.stringify({ ...META, ...(e.meta ?? {}) })],
      ]);
    }
    const loaded: Position[] = [];
    const watched: Projection = {
      ...lessonsProjection,
      loadInDatabase: async (sql, upTo) => {
        const n = (await lessonsProjection.loadInDatabase?.(sql, upTo)) ?? 0;
        loaded.push(upTo);
        return n;
      },
    };
    const told: string[] = [];
    const storeTable = {
      only: (types: string[], upTo: Position) => eventsOfTypesUpTo(pool, types, upTo),
      notLoaded: (projection: string) => void told.push(projection),
    };
    const dump = async (projection: Projection, options: { storeTable?: typeof storeTable }) => {
      const { failures } = await rebuildReadModels(pool, store as EventStore, [projection], undefined, options);
      const rows: Record<string, string[]> = {};
      for (const table of TABLES) {
        rows[table] = (await pool.query(`select to_jsonb(t)::text as row from ${table} t order by 1`)).rows.map(
          (r) => r.row,
        );
      }
      return { failures: failures.map((f) => `${f.failure.type}: ${f.failure.error}`), rows };
    };
    const expected = await dump(eventByEvent, {});
    const actual = await dump(watched, { storeTable });
    expect(actual).toEqual(expected);
    // A projection the database could not load is said, and only then.
    expect(told).toEqual(loaded.length > 0 ? [] : ['lessons']);
    return loaded.length > 0;
  } finally {
    await store.close();
    await pool.end();
    await database.drop();
  }
}

const rec = (tutor: string, lesson: string, meta?: Record<string, unknown>, month = '"2026-03"'): Raw => ({
  type: 'LessonRecorded',
  data: `{"tutorId":${JSON.stringify(tutor)},"month":${month},"lesson":${lesson}}`,
  meta,
});
const chg = (tutor: string, lesson: string): Raw => ({
  type: 'LessonChanged',
  data: `{"tutorId":${JSON.stringify(tutor)},"month":"2026-03","lesson":${lesson}}`,
});
const lock = (tutor: string, invoice: string, meta?: Record<string, unknown>): Raw => ({
  type: 'TimesheetMonthLocked',
  data: `{"tutorId":${JSON.stringify(tutor)},"month":"2026-03","invoiceId":${JSON.stringify(invoice)}}`,
  meta,
});

describe('the lessons loaded by the database, from a store written otherwise than the product writes', () => {
  it('leaves to the handlers a number JavaScript rounds (2^53 + 1) and keys that are not strings', async () => {
    expect(await compare((t) => [rec(t, lessonJson({ amountPence: '9007199254740993' }))])).toBe(false);
    expect(await compare((t) => [rec(t, lessonJson({ engagementId: '7.0' }))])).toBe(false);
    expect(await compare((t) => [rec(t, lessonJson({ studentId: '{"a":1,"b":[1,2]}' }))])).toBe(false);
  });

  it('loads numbers given as strings, recorded times to the microsecond, and a lock’s recorded time as written', async () => {
    expect(
      await compare((t) => [rec(t, lessonJson({ duration: '"150"', ratePence: '"3000"', amountEdited: '"true"' }))]),
    ).toBe(true);
    const id = JSON.stringify(randomUUID());
    expect(
      await compare((t) => [
        rec(t, lessonJson({ lessonId: id }), { recordedAt: '2026-03-31T10:00:00.123456Z' }),
        {
          ...chg(t, lessonJson({ lessonId: id, duration: '60' })),
          meta: { recordedAt: '2026-03-31T11:00:00.654321+01:00' },
        },
        lock(t, 'i-1', { recordedAt: '2026-03-31T12:00:00.123456Z' }),
      ]),
    ).toBe(true);
  });
});
