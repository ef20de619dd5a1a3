import { AsyncLocalStorage } from 'node:async_hooks';
import { readsEveryTutor, type SessionUser } from '@agency/contracts';
import { forbidden, HttpError, type Position, START } from '@agency/platform';
import type { RouteOptions } from 'fastify';
import type pg from 'pg';
import { agencyTime } from './recorded-events';

/** Where a table's versions say when they were written: a recorded time and its position. */
type Moments = { table: string; time: string; commit: string; prepare: string };
type Versioned = {
  /** The rows as they were at a position (a literal row of two numbers), as a query. */
  rowsAt: (upTo: string) => string;
  /** Where the positions of the events that changed its rows are kept, with their recorded times. */
  moments: Moments[];
};

/**
 * Versions in a table of their own, only ever appended to (read-models/versions.ts): of each row's
 * versions written up to the position, the last one, unless it is a removal (the index on the key
 * and the position tells whether a later one was written by then).
 */
const appended = (versions: string, key: string[]): Versioned => ({
  rowsAt: (upTo) => `select * from ${versions} v
     where not v.removed and (v.valid_from_commit, v.valid_from_prepare) <= ${upTo}
       and not exists (select 1 from ${versions} n
                        where ${key.map((column) => `n.${column} = v.${column}`).join(' and ')}
                          and (n.valid_from_commit, n.valid_from_prepare) > (v.valid_from_commit, v.valid_from_prepare)
                          and (n.valid_from_commit, n.valid_from_prepare) <= ${upTo})`,
  moments: [{ table: versions, time: 'recorded_at', commit: 'valid_from_commit', prepare: 'valid_from_prepare' }],
});

const LESSON_COLUMNS = `id, tutor_id, month, engagement_id, student_id, date, duration_hundredths, rate_pence, amount_pence,
  amount_edited, commission_bp, commission_pence, partner_bp, partner_commission_pence`;

/**
 * The current tables that keep every version of their rows, and how. A view seen as of a past
 * moment reads, in their place, the versions current at that moment's position; its query is
 * otherwise the very same as the live one's.
 */
export const VERSIONED_TABLES = {
  tutors: appended('tutor_versions', ['id']),
  children: appended('child_versions', ['id']),
  // The current row holds from its own position; what it replaced is in lesson_history (050_lesson_versions.sql).
  lessons: {
    rowsAt: (upTo) => `select ${LESSON_COLUMNS} from lessons where (valid_from_commit, valid_from_prepare) <= ${upTo}
      union all
      select ${LESSON_COLUMNS} from lesson_history
       where (valid_from_commit, valid_from_prepare) <= ${upTo} and (valid_to_commit, valid_to_prepare) > ${upTo}`,
    moments: [
      { table: 'lessons', time: 'recorded_at', commit: 'valid_from_commit', prepare: 'valid_from_prepare' },
      { table: 'lesson_history', time: 'recorded_at', commit: 'valid_from_commit', prepare: 'valid_from_prepare' },
      { table: 'lesson_history', time: 'to_recorded_at', commit: 'valid_to_commit', prepare: 'valid_to_prepare' },
    ],
  },
  locked_months: appended('locked_month_versions', ['tutor_id', 'month']),
  engagements: appended('engagement_versions', ['id']),
  invoices: appended('invoice_versions', ['id']),
} satisfies Record<string, Versioned>;
export type VersionedTable = keyof typeof VERSIONED_TABLES;

/** The views that can be seen as of a past moment (`?asOf=`), each with the tables its query reads. */
export const AS_OF_VIEWS: Record<string, VersionedTable[]> = {
  '/api/reports/invoiceStatus': ['tutors', 'lessons', 'invoices'],
  '/api/invoices': ['tutors', 'invoices'],
  '/api/invoices/': ['tutors', 'invoices'],
  '/api/lessons': ['tutors', 'children', 'lessons', 'locked_months'],
  '/api/tutors/engagement/:tutorId/:engagementId': ['tutors', 'children', 'engagements'],
};

/**
 * `$all` is in commit order and an event's recorded time is taken inside its transaction, so a
 * later position may carry a slightly earlier time; past this margin no earlier one can follow.
 */
export const COMMIT_SLACK_MS = 5 * 60_000;

/** `YYYY-MM-DDTHH:mm[:ss]` in `timeZone` as an instant (the first one, in a clock change's repeated hour). */
export function agencyInstant(local: string, timeZone: string): Date {
  const wall = Date.parse(`${local.length === 16 ? `${local}:00` : local}Z`);
  const offsetAt = (instant: number) =>
    Date.parse(`${agencyTime(new Date(instant), timeZone).replace(' ', 'T')}Z`) - instant;
  const first = wall - offsetAt(wall);
  return new Date(wall - offsetAt(first));
}

/**
 * The position of a moment: the last position, among the events that wrote a version of these
 * tables, recorded at or before it (START when none was). Events that wrote none change nothing
 * these tables show, so the answer is the one of the last position of all `$all` recorded by
 * then. Read-only statements on the versions' `recorded_at` indexes: the latest time at or before
 * the moment, then the greatest position recorded from COMMIT_SLACK_MS before that time to the
 * moment (a later position recorded earlier than that would have had to wait longer to commit).
 */
export async function positionAt(
  sql: pg.ClientBase | pg.Pool,
  tables: readonly VersionedTable[],
  moment: Date,
): Promise<Position> {
  const latest = tables
    .flatMap((table) => VERSIONED_TABLES[table].moments)
    .map(
      ({ table, time, commit, prepare }) =>
        `(select v.${commit} as commit, v.${prepare} as prepare from ${table} v
           where v.${time} <= $1 and v.${time} >= (select max(${time}) from ${table} where ${time} <= $1) - $2::interval
           order by v.${commit} desc, v.${prepare} desc limit 1)`,
    )
    .join(' union all ');
  const found = await sql.query<{ commit_text: string; prepare_text: string }>(
    `select commit::text as commit_text, prepare::text as prepare_text from (${latest}) latest
      order by latest.commit desc, latest.prepare desc limit 1`,
    [moment.toISOString(), `${COMMIT_SLACK_MS} milliseconds`],
  );
  const row = found.rows[0];
  return row ? { commit: BigInt(row.commit_text), prepare: BigInt(row.prepare_text) } : START;
}

/** A versioned table's rows as they were at `at`, as a query. */
export function rowsAt(table: VersionedTable, at: Position): string {
  // Numbers made here from a Position, never text from a request.
  return VERSIONED_TABLES[table].rowsAt(`(${BigInt(at.commit).toString()}, ${BigInt(at.prepare).toString()})`);
}

/** After FROM or JOIN, what is not a table's alias. */
const NOT_AN_ALIAS = new Set(
  'where on join left right inner full cross natural group order limit offset union except intersect having window using lateral for fetch returning'.split(
    ' ',
  ),
);
const IDENTIFIER = '[A-Za-z_][A-Za-z0-9_]*';
const TABLE_REFERENCE = new RegExp(
  `\\b(from|join)(\\s+)(${IDENTIFIER})\\b(?!\\s*[.(])((?:\\s+as)?\\s+(${IDENTIFIER})\\b)?`,
  'gi',
);
const COMMON_TABLE = new RegExp(`\\b(${IDENTIFIER})\\s+as\\s*\\(`, 'gi');

/**
 * A view's SQL read as of `at`: each table it names after FROM or JOIN becomes the subquery of its
 * versions current then, under the table's alias (or its name). A table that keeps no versions, or
 * one the view is not declared to read, is refused: a past view never mixes in present rows. (The
 * views join with JOIN; a table after a comma in a FROM list would not be seen.)
 */
export function sqlAsOf(text: string, tables: readonly VersionedTable[], at: Position): string {
  const common = new Set([...text.matchAll(COMMON_TABLE)].map((match) => (match[1] as string).toLowerCase()));
  return text.replace(
    TABLE_REFERENCE,
    (whole, keyword: string, space: string, name: string, aliasPart: string | undefined, alias: string | undefined) => {
      const table = name.toLowerCase();
      if (common.has(table)) return whole;
      if (!(tables as readonly string[]).includes(table)) {
        throw new Error(`${name} is read as of a past moment but is not one of the versioned tables of this view.`);
      }
      const subquery = `${keyword}${space}(${rowsAt(table as VersionedTable, at)})`;
      if (alias && !NOT_AN_ALIAS.has(alias.toLowerCase())) return `${subquery}${aliasPart}`;
      return `${subquery} as ${name}${aliasPart ?? ''}`;
    },
  );
}

/**
 * Where a view's queries go while its handler answers as of a past moment: a connection, and what
 * becomes of each statement there (`sqlAsOf` in production; tests replaying events use as is).
 */
export type PastConnection = { client: pg.ClientBase; sql: (text: string) => string };
const pastConnection = new AsyncLocalStorage<PastConnection>();

/**
 * Whether the request being answered is a view as of a past moment. The money-model labels are
 * left off such a view: the choices keep no versions, and a past view never mixes in present rows.
 */
export const answeringAsOf = () => pastConnection.getStore() !== undefined;

/** Runs `work` with the queries of `pastAwarePool` sent to `past`. */
export const withPastConnection = <T>(past: PastConnection, work: () => Promise<T>) => pastConnection.run(past, work);

/**
 * The pool the query plugins are given: its `query` runs on the past view's connection, each
 * statement read as of the view's position, while a handler answers as of a past moment; on the
 * pool otherwise. So a view's query code is the very same for now and for the past.
 */
export function pastAwarePool(pool: pg.Pool): pg.Pool {
  return new Proxy(pool, {
    get(target, property) {
      const past = property === 'query' ? pastConnection.getStore() : undefined;
      if (past) {
        return (config: string | pg.QueryConfig, ...rest: unknown[]) =>
          typeof config === 'string'
            ? (past.client.query as (...args: unknown[]) => unknown)(past.sql(config), ...rest)
            : (past.client.query as (...args: unknown[]) => unknown)(
                { ...config, text: past.sql(config.text) },
                ...rest,
              );
      }
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** Points in an as-of request where a test may hold it (production sets no hook). */
export type AsOfPoint =
  /** The request waits for a slot (called as it joins the queue, not awaited). */
  | 'queued'
  /** The request holds its slot and its connection and knows its position; its queries come next. */
  | 'answering';
const hooks = new Map<AsOfPoint, () => Promise<void> | void>();

/** For tests: runs `hook` whenever an as-of request reaches `point`; returns the function that removes it. */
export function onAsOfPoint(point: AsOfPoint, hook: () => Promise<void> | void): () => void {
  hooks.set(point, hook);
  return () => {
    if (hooks.get(point) === hook) hooks.delete(point);
  };
}

/** How many as-of requests are answered at once, and how many more may wait for a turn. */
export const AS_OF_LIMITS = { running: 2, waiting: 4 };

const tooMany = () =>
  new HttpError(
    429,
    'too_many_requests',
    'Too many views as of a past moment are being worked out: please try again in a moment.',
    { asOf: 'Try again in a moment' },
  );

/** A small queue: `running` at once, `waiting` more in order, and a refusal past it. */
class Turns {
  private running = 0;
  private readonly queue: (() => void)[] = [];
  constructor(private readonly limits: typeof AS_OF_LIMITS) {}

  /** Waits for a turn (refused at once when the queue is full); answers the function that ends it. */
  async take(): Promise<() => void> {
    if (this.running >= this.limits.running) {
      if (this.queue.length >= this.limits.waiting) throw tooMany();
      const turn = new Promise<void>((resolve) => this.queue.push(resolve));
      void hooks.get('queued')?.();
      await turn;
    } else {
      this.running += 1;
    }
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      // The turn passes to the first waiting, or is given back.
      const next = this.queue.shift();
      if (next) next();
      else this.running -= 1;
    };
  }
}

type AsOfOptions = {
  pool: pg.Pool;
  timeZone: string;
  limits?: typeof AS_OF_LIMITS;
  /** Not read: past views no longer replay the event store (the app still passes it). */
  store?: unknown;
};

/**
 * An `onRoute` hook: each view of `AS_OF_VIEWS`, when asked `?asOf=` (the office only: a tutor's
 * views are of now), answers from the versions of its tables current at the position of that
 * moment. Read-only statements on one connection of the pool, outside any transaction (no
 * transaction id, so `$all` never waits for one), a few requests at a time: at most `running`
 * connections of the pool are ever an as-of view's, the others stay for sessions and live views.
 */
export function asOfRoutes({ pool, timeZone, limits = AS_OF_LIMITS }: AsOfOptions) {
  const turns = new Turns(limits);
  return (route: RouteOptions) => {
    const tables = route.method === 'GET' ? AS_OF_VIEWS[route.url] : undefined;
    if (!tables) return;
    const handler = route.handler;
    route.handler = async function asOfHandler(request, reply) {
      const asOf = (request.query as { asOf?: string } | undefined)?.asOf;
      if (!asOf) return handler.call(this, request, reply);
      const user = (request as { signedIn?: SessionUser }).signedIn;
      if (!user || !readsEveryTutor(user.role)) throw forbidden('Views as of a past moment are for the office.');
      const end = await turns.take().catch((error: unknown) => {
        if (error instanceof HttpError && error.statusCode === 429) reply.header('retry-after', '1');
        throw error;
      });
      try {
        const client = await pool.connect();
        try {
          const at = await positionAt(client, tables, agencyInstant(asOf, timeZone));
          await hooks.get('answering')?.();
          const past = { client, sql: (text: string) => sqlAsOf(text, tables, at) };
          return await withPastConnection(past, async () => handler.call(this, request, reply));
        } finally {
          client.release();
        }
      } finally {
        end();
      }
    };
  };
}
