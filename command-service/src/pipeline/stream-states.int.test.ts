import { randomUUID } from 'node:crypto';
import type { SessionUser } from '@agency/contracts';
import { type engagement, fold, timesheet } from '@agency/domain';
import { type EventStore, migrateEventStore, PostgresEventStore } from '@agency/platform';
import { createTestDatabase } from '@agency/scripts/testing/test-database';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CommandDependencies, createCommandContext } from './command-pipeline';
import type { ProcessedCommands } from './idempotency';
import type { ProjectionWatch } from './projection-watch';
import { StreamStates } from './stream-states';

const { timesheetDecider, timesheetStream } = timesheet;
const admin: SessionUser = { id: 'admin-1', username: 'admin', role: 'admin' };
const actor = { role: 'admin' as const, tutorId: null };
const summary: engagement.EngagementSummary = {
  engagementId: 'e-1',
  tutorId: 't-1',
  studentId: 's-1',
  startDate: '2026-01-01',
  endDate: null,
  periods: [
    { startDate: '2026-01-01', endDate: null, ratePence: 3000, commissionBp: 2000, partnerBp: 0, subjects: ['Maths'] },
  ],
};
const save = (date: string, duration: number, lessonId?: string): timesheet.TimesheetCommand => ({
  type: 'SaveLessonCell',
  tutorId: 't-1',
  month: date.slice(0, 7),
  lessonId,
  engagement: summary,
  date,
  duration,
  actor,
});

describe('kept stream states (real PostgreSQL)', () => {
  let pool: pg.Pool;
  let store: PostgresEventStore;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const database = await createTestDatabase();
    drop = database.drop;
    pool = new pg.Pool({ connectionString: database.url, max: 5 });
    await migrateEventStore(pool);
    store = new PostgresEventStore(pool);
  });
  afterAll(async () => {
    await pool.end();
    await drop();
  });

  /** One command service instance: its own kept states (none with `keep: false`), one shared store. */
  const instance = (options: { keep: boolean; store?: EventStore }) => {
    const deps: CommandDependencies = {
      store: options.store ?? store,
      processed: {} as ProcessedCommands,
      projections: {} as ProjectionWatch,
      states: options.keep ? new StreamStates([timesheetDecider]) : undefined,
      clock: () => new Date('2026-03-31T12:00:00Z'),
    };
    return (command: timesheet.TimesheetCommand, commandId = randomUUID()) =>
      createCommandContext(deps, admin, commandId, commandId).context.run(
        timesheetStream('t-1', command.month),
        timesheetDecider,
        command,
      );
  };
  const replay = async (month: string) =>
    fold(
      timesheetDecider,
      (await store.readStream(timesheetStream('t-1', month))).map((e) => ({ type: e.type, data: e.data }) as never),
    );
  const lessonIdOf = (date: string) => timesheet.gridLessonId('e-1', date);

  it('decides exactly as a full replay: the same outcome, and after every save the stream folded whole', async () => {
    const kept = instance({ keep: true });
    const month = '2026-03';
    const days = ['2026-03-02', '2026-03-03', '2026-03-04'];
    let refused = 0;
    for (let n = 0; n < 30; n++) {
      const date = days[n % days.length] as string;
      const before = await replay(month);
      // Every few saves the cell is sent as the screen showed it some time ago (empty, or a lesson gone).
      const shown = n % 5 === 4 ? undefined : before.lessons.get(lessonIdOf(date))?.lessonId;
      const command = save(date, [150, 100, 0, 200, 150][n % 5] as number, shown);
      const expected = (() => {
        try {
          timesheetDecider.decide(command, before, new Date());
          return 'decided';
        } catch (error) {
          return (error as Error).message;
        }
      })();
      const outcome = await kept(command).then(
        (state) => ({ message: 'decided', state }),
        (error: Error) => ({ message: error.message, state: undefined }),
      );
      expect(outcome.message).toBe(expected);
      if (outcome.state) expect(outcome.state).toEqual(await replay(month));
      else refused++;
    }
    expect(refused).toBeGreaterThan(0);
    expect((await replay(month)).lessons.size).toBeGreaterThan(0);
  });

  it('notices a stream another instance moved on: no lost update, and nothing decided on the stale state', async () => {
    const one = instance({ keep: true });
    const other = instance({ keep: false });
    const month = '2026-04';
    const date = '2026-04-06';
    await one(save(date, 150));
    // Another instance changes the lesson: `one` still keeps 1.5 hours.
    await other(save(date, 200, lessonIdOf(date)));
    // Back to 1.5 hours: the kept state says "nothing to change", the stream says 2 hours.
    const state = await one(save(date, 150, lessonIdOf(date)));
    expect(state.lessons.get(lessonIdOf(date))?.duration).toBe(150);
    expect((await replay(month)).lessons.get(lessonIdOf(date))?.duration).toBe(150);
    // The other instance removes it: the kept state would still refuse an empty cell's save as a conflict.
    await other(save(date, 0, lessonIdOf(date)));
    const again = await one(save(date, 100));
    expect(again.lessons.get(lessonIdOf(date))?.duration).toBe(100);
    // And an append on the stale revision is refused by the store and decided again, once.
    await other(save('2026-04-07', 100));
    await one(save('2026-04-08', 100));
    expect((await replay(month)).lessons.size).toBe(3);
    expect((await store.readStream(timesheetStream('t-1', month))).map((e) => e.revision)).toEqual([
      0, 1, 2, 3, 4, 5, 6,
    ]);
  });

  it('a kept state is only used where the store accepts its revision: a stale one is refused, never appended on', async () => {
    const appends: (number | string)[] = [];
    const counting: EventStore = Object.create(store, {
      appendToStream: {
        value: async (...args: Parameters<EventStore['appendToStream']>) => {
          appends.push(args[2].expectedRevision);
          return store.appendToStream(...args);
        },
      },
    });
    const one = instance({ keep: true, store: counting });
    const other = instance({ keep: false });
    await one(save('2026-05-04', 100));
    await other(save('2026-05-05', 100));
    await one(save('2026-05-06', 100));
    // The second save of `one` tried revision 0 (kept), was refused, read the one event after it, then appended at 1.
    expect(appends).toEqual(['no_stream', 0, 1]);
  });

  it('a command run again finds the events its first run appended, even when its state is kept', async () => {
    const one = instance({ keep: true });
    const commandId = randomUUID();
    const first = await one(save('2026-06-01', 100), commandId);
    await one(save('2026-06-02', 100));
    // The same command again (a retry after a crash): nothing appended twice, the state just after its events.
    const retried = await one(save('2026-06-01', 100), commandId);
    expect(retried).toEqual(first);
    expect(await store.readStream(timesheetStream('t-1', '2026-06'))).toHaveLength(2);
  });
});
