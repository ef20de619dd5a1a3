import { comparePositions, type EventStore, type Position, type RecordedEvent, START } from '@agency/platform';
import { inTransaction } from '@agency/platform/transaction';
import type pg from 'pg';
import { bufferTime, concatMap, defer, filter, from, retry, type Subscription, switchMap } from 'rxjs';
import { ADVISORY_LOCKS } from './advisory-locks';
import { handlerFor, type Projection } from './read-models/projection';

export const LIVE_SCHEMA = 'read';
/**
 * Notified whenever a live projection's checkpoint or failure changes. After a live batch that
 * every projection applied, the payload names the checkpoints it moved (`name=commit/prepare`,
 * space-separated), so a command waiting to read its own write is woken without re-reading every
 * checkpoint; any other change (a failure, a projection joining or rebuilt) is notified empty,
 * meaning "read the checkpoints again".
 */
export const CHECKPOINT_CHANNEL = 'projection_checkpoint';
/** Held by whoever writes read models, so a rebuild's swap never interleaves with a live batch. */
export const WRITER_LOCK = ADVISORY_LOCKS.writer;

export const quoteIdent = (name: string) => `"${name.replaceAll('"', '""')}"`;
export const formatPosition = (position: Position) => `${position.commit}/${position.prepare}`;

/** What a projection could not apply: it stopped just before this event. */
export type ProjectionFailure = {
  position: string;
  streamId: string;
  eventId: string;
  type: string;
  error: string;
  at: string;
};

export type ProjectionStatus = {
  name: string;
  version: number;
  handles: string[];
  position: Position;
  /** Moves with the live subscription; otherwise it is catching up (new, rebuilt or stalled). */
  following: boolean;
  failedAt: Date | null;
  failure: ProjectionFailure | null;
  attempts: number;
  retryAt: Date | null;
  /** No retry is pending, or its time has come (by the database's clock). */
  due: boolean;
};

export type Backoff = { firstMs: number; maxMs: number };
export const DEFAULT_BACKOFF: Backoff = { firstMs: 1000, maxMs: 60_000 };

/** 1 s, 2 s, 4 s … at most 60 s (by default) after the n-th failure on one event. */
export const retryDelayMs = (attempts: number, backoff: Backoff = DEFAULT_BACKOFF) =>
  Math.min(backoff.maxMs, backoff.firstMs * 2 ** Math.min(20, Math.max(0, attempts - 1)));

export async function readStatuses(
  sql: pg.ClientBase | pg.Pool,
  schema: string,
  lock = false,
): Promise<Map<string, ProjectionStatus>> {
  const result = await sql.query(
    `select name, version, handles, commit_position, prepare_position, following, failed_at, failure, attempts,
       retry_at, coalesce(retry_at <= now(), true) as due
     from ${quoteIdent(schema)}.projection_checkpoints order by name${lock ? ' for update' : ''}`,
  );
  return new Map(
    result.rows.map((row) => [
      row.name,
      {
        name: row.name,
        version: row.version,
        handles: row.handles,
        position: { commit: BigInt(row.commit_position), prepare: BigInt(row.prepare_position) },
        following: row.following,
        failedAt: row.failed_at,
        failure: row.failure,
        attempts: row.attempts,
        retryAt: row.retry_at,
        due: row.due,
      },
    ]),
  );
}

export const minPosition = (positions: Position[]): Position =>
  positions.reduce<Position | undefined>(
    (least, position) => (!least || comparePositions(position, least) < 0 ? position : least),
    undefined,
  ) ?? START;

/** Takes the writer lock (first) and points unqualified table names at `schema`. */
export async function lockWriter(sql: pg.ClientBase, schema: string) {
  await sql.query('select pg_advisory_xact_lock($1)', [WRITER_LOCK]);
  await sql.query(`set local search_path to ${quoteIdent(schema)}`);
}

type Outcome = { position: Position; failed?: { event: RecordedEvent; error: unknown } };

/**
 * One projection's share of a batch, in a savepoint of the caller's transaction. An event it
 * cannot apply undoes its share; the events before that one are applied again, so the
 * projection stops exactly at the failing event, and nothing else in the transaction is lost.
 */
async function applyToProjection(
  sql: pg.ClientBase,
  projection: Projection,
  from: Position,
  events: RecordedEvent[],
): Promise<Outcome> {
  if (projection.applyBatch) {
    const fresh = events.filter((event) => comparePositions(event.position, from) > 0);
    if (fresh.length === 0) return { position: from };
    // An event it handles that could not be read: event by event applies those before it and stops there.
    if (fresh.some((event) => event.readError && handlerFor(projection, event.type))) {
      return applyOneByOne(sql, projection, from, events);
    }
    await sql.query('savepoint projection');
    try {
      await projection.applyBatch(sql, fresh);
      await sql.query('release savepoint projection');
      return { position: (fresh.at(-1) as RecordedEvent).position };
    } catch {
      // Undone; event by event below finds the event at fault and applies those before it.
      await sql.query('rollback to savepoint projection');
      await sql.query('release savepoint projection');
      return applyOneByOne(sql, projection, from, events);
    }
  }
  return applyOneByOne(sql, projection, from, events);
}

async function applyOneByOne(
  sql: pg.ClientBase,
  projection: Projection,
  from: Position,
  events: RecordedEvent[],
): Promise<Outcome> {
  let position = from;
  let current: RecordedEvent | undefined;
  await sql.query('savepoint projection');
  try {
    for (const event of events) {
      if (comparePositions(event.position, position) <= 0) continue;
      current = event;
      const handler = handlerFor(projection, event.type);
      // An event it handles but that could not be read fails here, recorded like any other failure.
      if (handler && event.readError) throw event.readError;
      await handler?.(sql, event);
      position = event.position;
    }
    await sql.query('release savepoint projection');
    return { position };
  } catch (error) {
    await sql.query('rollback to savepoint projection');
    await sql.query('release savepoint projection');
    if (!current) throw error;
    const failing = current;
    const before = events.filter((event) => comparePositions(event.position, failing.position) < 0);
    const again = before.length > 0 ? await applyOneByOne(sql, projection, from, before) : { position: from };
    return { position: again.position, failed: again.failed ?? { event: failing, error } };
  }
}

export type AppliedFailure = { projection: string; failure: ProjectionFailure; retryAt: Date };

/**
 * A projection none of whose handlers concerns the fresh events (those after its checkpoint) of a
 * batch: it only moves past them. Most live batches concern one or two projections of ten.
 */
function movesPastOnly(projection: Projection, from: Position, events: RecordedEvent[]): Outcome | undefined {
  const fresh = events.filter((event) => comparePositions(event.position, from) > 0);
  if (fresh.some((event) => handlerFor(projection, event.type))) return undefined;
  return { position: fresh.at(-1)?.position ?? from };
}

/**
 * Applies events to each of `projections` inside the caller's transaction (which holds the
 * writer lock), skipping for each the events at or before its own checkpoint, so nothing is
 * applied twice whoever delivered it. A projection that fails on an event stops there and the
 * failure is recorded with its next retry time; the others move on, their checkpoints written
 * in one statement.
 */
export async function applyEvents(
  sql: pg.ClientBase,
  events: RecordedEvent[],
  projections: Projection[],
  statuses: Map<string, ProjectionStatus>,
  backoff: Backoff = DEFAULT_BACKOFF,
  /** Filled with the checkpoints written clear of any failure (for the checkpoint notification). */
  moved: MovedCheckpoint[] = [],
): Promise<AppliedFailure[]> {
  const failures: AppliedFailure[] = [];
  for (const projection of projections) {
    const status = statuses.get(projection.name);
    if (!status) continue;
    const outcome =
      movesPastOnly(projection, status.position, events) ??
      (await applyToProjection(sql, projection, status.position, events));
    const { position } = outcome;
    if (outcome.failed) {
      const { event, error } = outcome.failed;
      const failure: ProjectionFailure = {
        position: formatPosition(event.position),
        streamId: event.streamId,
        eventId: event.id,
        type: event.type,
        error: (error instanceof Error ? error.message : String(error)).slice(0, 2000),
        at: new Date().toISOString(),
      };
      const sameEvent = status.failure?.eventId === event.id;
      const attempts = sameEvent ? status.attempts + 1 : 1;
      const delay = retryDelayMs(attempts, backoff);
      const result = await sql.query(
        `update projection_checkpoints set commit_position = $2, prepare_position = $3, following = false,
           failed_at = case when $6 then coalesce(failed_at, now()) else now() end, failure = $4, attempts = $5,
           retry_at = clock_timestamp() + $7 * interval '1 millisecond'
         where name = $1 returning retry_at`,
        [projection.name, position.commit.toString(), position.prepare.toString(), failure, attempts, sameEvent, delay],
      );
      failures.push({ projection: projection.name, failure, retryAt: result.rows[0].retry_at });
    } else if (comparePositions(position, status.position) !== 0 || status.failure) {
      moved.push({ name: projection.name, position });
    }
  }
  if (moved.length > 0) {
    await sql.query(
      `update projection_checkpoints c set commit_position = m.commit_position, prepare_position = m.prepare_position,
         failed_at = null, failure = null, attempts = 0, retry_at = null
       from unnest($1::text[], $2::bigint[], $3::bigint[]) as m (name, commit_position, prepare_position)
       where c.name = m.name`,
      [
        moved.map(({ name }) => name),
        moved.map(({ position }) => position.commit.toString()),
        moved.map(({ position }) => position.prepare.toString()),
      ],
    );
  }
  return failures;
}

export type MovedCheckpoint = { name: string; position: Position };

/** `moved`: only when these moves are the whole change (see CHECKPOINT_CHANNEL); else the payload is empty. */
export async function notifyCheckpoint(sql: pg.ClientBase, schema: string, moved: MovedCheckpoint[] = []) {
  if (schema !== LIVE_SCHEMA) return;
  const payload = moved.map(({ name, position }) => `${name}=${formatPosition(position)}`).join(' ');
  await sql.query('select pg_notify($1, $2)', [CHECKPOINT_CHANNEL, payload]);
}

/**
 * One step of catching up the projections of `schema` that do not follow the live subscription
 * (new, being rebuilt, or stalled with a retry due), inside the caller's transaction: takes the
 * writer lock first, reads one batch of `$all` after the least of their checkpoints and applies
 * it. `read: 0` means they are at the head of `$all`; with `follow`, those without a failure then
 * follow the live subscription — decided under the writer lock, so no live batch can slip past.
 */
export async function catchUpStep(
  sql: pg.ClientBase,
  store: EventStore,
  schema: string,
  projections: Projection[],
  options: {
    follow: boolean;
    limit?: number;
    backoff?: Backoff;
    /** The batch after a position, already asked for (read ahead): used when it starts where this step does. */
    ahead?: ReadAhead;
    /** Called with the position after which the next step will read, before this one applies its batch. */
    readNext?: (from: Position) => void;
  },
): Promise<{ read: number; failures: AppliedFailure[] }> {
  await lockWriter(sql, schema);
  const statuses = await readStatuses(sql, schema, true);
  const due = projections.filter((projection) => {
    const status = statuses.get(projection.name);
    return status && !status.following && status.due;
  });
  if (due.length === 0) return { read: 0, failures: [] };
  const from = minPosition(due.map((projection) => (statuses.get(projection.name) as ProjectionStatus).position));
  const limit = options.limit ?? 1000;
  const aheadEvents =
    options.ahead && comparePositions(options.ahead.from, from) === 0 ? await options.ahead.events : undefined;
  // An empty read-ahead proves nothing: it was read before this step took the writer lock, and a
  // live batch may have applied later events to the others since. Only a read under the lock can
  // show these projections at the head (and so let them follow without skipping anything).
  const events = aheadEvents?.length ? aheadEvents : await store.readAll({ from, limit });
  const last = events.at(-1);
  if (last) options.readNext?.(last.position);
  if (events.length === 0) {
    if (options.follow) {
      await sql.query('update projection_checkpoints set following = true where name = any($1) and failure is null', [
        due.map((projection) => projection.name),
      ]);
      await notifyCheckpoint(sql, schema);
    }
    return { read: 0, failures: [] };
  }
  const failures = await applyEvents(sql, events, due, statuses, options.backoff);
  await notifyCheckpoint(sql, schema);
  return { read: events.length, failures };
}

/** Events per catch-up transaction: set-based projections (applyBatch) write each batch at once. */
export const CATCH_UP_BATCH = 5000;

/**
 * The batch of `$all` after `from`, asked for while the previous batch is being applied, so the
 * store's reading and the projections' writing overlap. Any consecutive run of events after
 * `from` is a valid batch; a read that failed is simply read again (`events` is then undefined).
 */
export type ReadAhead = { from: Position; events: Promise<RecordedEvent[] | undefined> };

/** Repeats `catchUpStep`, one transaction per batch, until the projections are at the head. */
export async function catchUp(
  pool: pg.Pool,
  store: EventStore,
  schema: string,
  projections: Projection[],
  options: {
    follow: boolean;
    backoff?: Backoff;
    onProgress?: (read: number) => void;
    onFailure?: (failure: AppliedFailure) => void;
    stopped?: () => boolean;
    /** Events per transaction: large, since a catch-up (or a rebuild) is mostly behind by many. */
    limit?: number;
  },
): Promise<number> {
  let read = 0;
  const limit = options.limit ?? CATCH_UP_BATCH;
  let ahead: ReadAhead | undefined;
  const readNext = (from: Position) => {
    ahead = { from, events: store.readAll({ from, limit }).catch(() => undefined) };
  };
  for (;;) {
    const step = await inTransaction(pool, (sql) =>
      catchUpStep(sql, store, schema, projections, { ...options, limit, ahead, readNext }),
    );
    for (const failure of step.failures) options.onFailure?.(failure);
    if (step.read === 0 || options.stopped?.()) {
      // No read is left running behind the caller's back (say, one that then closes the store).
      await ahead?.events;
      return read;
    }
    read += step.read;
    options.onProgress?.(read);
  }
}

/** One projection's progress through a scratch load (see `loadScratch`). */
type Lane = { projection: Projection; status: ProjectionStatus; stopped: boolean; unsaved: boolean };

/**
 * A lane's share of one batch: nothing to write when it handles none of the fresh events (its
 * checkpoint moves in memory, written at the end of the pass); else one transaction of its own,
 * its checkpoint with it. A failure stops the lane for the rest of the pass (recorded as ever).
 */
async function applyLane(
  pool: pg.Pool,
  schema: string,
  lane: Lane,
  events: RecordedEvent[],
  backoff: Backoff,
): Promise<AppliedFailure[]> {
  if (lane.stopped) return [];
  const { projection, status } = lane;
  const passed = movesPastOnly(projection, status.position, events);
  if (passed) {
    lane.unsaved ||= comparePositions(passed.position, status.position) !== 0;
    status.position = passed.position;
    return [];
  }
  const failures = await inTransaction(pool, async (sql) => {
    // Commits without waiting for the WAL flush: a crash loses only a schema that was never live
    // (the next rebuild starts afresh in one of its own); the swap commits synchronously.
    await sql.query(`set local search_path to ${quoteIdent(schema)}; set local synchronous_commit = off`);
    return applyEvents(sql, events, [projection], new Map([[projection.name, status]]), backoff);
  });
  lane.unsaved = false;
  const failure = failures[0];
  if (failure) {
    lane.stopped = true;
    return failures;
  }
  status.position = (events.at(-1) as RecordedEvent).position;
  // Cleared with the checkpoint by applyEvents (a projection tried again after a failure).
  status.failure = null;
  status.attempts = 0;
  return [];
}

type PassOptions = {
  backoff: Backoff;
  limit: number;
  onRead: (read: number) => void;
  onFailure: (failure: AppliedFailure) => void;
  /** The reading ends here (`store` holds nothing after it): lanes still going are at it once it ends. */
  upTo?: Position;
};

/**
 * One pass of a scratch load: every projection of `projections` from its checkpoint on, through
 * `store`'s `$all`. Each batch is read once (the next one read while this one is applied) and
 * applied by every lane at once, each on a connection and in a transaction of its own: the
 * projections write disjoint tables, so their writes run side by side in the database instead of
 * one after another (a full rebuild's Node process was idle 63 % of the time, waiting for one
 * statement at a time). Memory stays at two batches: the next is read only once every lane is
 * done with this one. Answers how many events it read.
 */
async function loadPass(
  pool: pg.Pool,
  store: EventStore,
  schema: string,
  projections: Projection[],
  options: PassOptions,
): Promise<number> {
  const { limit } = options;
  const statuses = await readStatuses(pool, schema);
  const lanes: Lane[] = projections.flatMap((projection) => {
    const status = statuses.get(projection.name);
    return status ? [{ projection, status, stopped: false, unsaved: false }] : [];
  });
  if (lanes.length === 0) return 0;
  const going = () => lanes.filter((lane) => !lane.stopped);
  let read = 0;
  let next = store.readAll({ from: minPosition(lanes.map((lane) => lane.status.position)), limit });
  try {
    for (;;) {
      const events = await next;
      const last = events.at(-1);
      if (!last || going().length === 0) break;
      next = store.readAll({ from: last.position, limit });
      // Awaited in the next round (or the finally below); its rejection is not unhandled meanwhile.
      next.catch(() => {});
      const applied = await Promise.allSettled(
        lanes.map((lane) => applyLane(pool, schema, lane, events, options.backoff)),
      );
      for (const outcome of applied) {
        if (outcome.status === 'rejected') throw outcome.reason;
        for (const failure of outcome.value) options.onFailure(failure);
      }
      read += events.length;
      options.onRead(read);
      // Those still going are all further on (the one behind them stopped again): read from there.
      const from = minPosition(going().map((lane) => lane.status.position));
      if (going().length > 0 && comparePositions(from, last.position) > 0) {
        await next.catch(() => {});
        next = store.readAll({ from, limit });
        next.catch(() => {});
      }
    }
    const { upTo } = options;
    if (upTo) {
      for (const lane of going()) {
        if (comparePositions(lane.status.position, upTo) >= 0) continue;
        lane.status.position = upTo;
        lane.unsaved = true;
      }
    }
    const unsaved = lanes.filter((lane) => lane.unsaved);
    if (unsaved.length > 0) {
      await pool.query(
        `update ${quoteIdent(schema)}.projection_checkpoints c
            set commit_position = m.commit_position, prepare_position = m.prepare_position
           from unnest($1::text[], $2::bigint[], $3::bigint[]) as m (name, commit_position, prepare_position)
          where c.name = m.name`,
        [
          unsaved.map((lane) => lane.projection.name),
          unsaved.map((lane) => lane.status.position.commit.toString()),
          unsaved.map((lane) => lane.status.position.prepare.toString()),
        ],
      );
    }
    return read;
  } finally {
    // No read is left running behind the caller's back (say, one that then closes the store).
    await next.catch(() => {});
  }
}

/** A rebuild may read the PostgreSQL store's own table: the store lives in the read models' database. */
export type StoreTable = {
  /** The store's `$all` holding only events of `types`, none after `upTo`, read as the store reads them. */
  only: (types: string[], upTo: Position) => EventStore;
  /** Told why a projection the database could not load is applied as ever instead (slower, never wrong). */
  notLoaded?: (projection: string, why: string) => void;
};

/** A projection loaded by the database itself (`loadInDatabase`), its checkpoint moved to `upTo` with it; 0 if it could not be. */
async function loadInDatabase(
  pool: pg.Pool,
  schema: string,
  projection: Projection,
  upTo: Position,
  notLoaded?: StoreTable['notLoaded'],
) {
  const load = projection.loadInDatabase;
  if (!load) return 0;
  try {
    return await inTransaction(pool, async (sql) => {
      // Its sorts of a million rows in memory rather than in temporary files; no WAL flush (see applyLane).
      await sql.query(
        `set local search_path to ${quoteIdent(schema)}; set local synchronous_commit = off; set local work_mem = '64MB'`,
      );
      const applied = await load(sql, upTo);
      await sql.query('update projection_checkpoints set commit_position = $2, prepare_position = $3 where name = $1', [
        projection.name,
        upTo.commit.toString(),
        upTo.prepare.toString(),
      ]);
      return applied;
    });
  } catch (error) {
    // Undone: the pass through the store that follows applies its events as ever.
    notLoaded?.(projection.name, error instanceof Error ? error.message : String(error));
    return 0;
  }
}

/**
 * The first pass of a load from the store's own table, up to the head seen now: the projections
 * that can be loaded by the database are (one transaction each), while the others read only the
 * event types they handle, side by side with them. The events after that head, and a projection
 * the database could not load, are left to the pass through the store that follows.
 */
async function loadFromStoreTable(
  pool: pg.Pool,
  store: EventStore,
  table: StoreTable,
  schema: string,
  projections: Projection[],
  options: PassOptions,
): Promise<number> {
  const upTo = await store.head();
  const statuses = await readStatuses(pool, schema);
  const fresh = (projection: Projection) => {
    const status = statuses.get(projection.name);
    return !!status && !status.failure && comparePositions(status.position, START) === 0;
  };
  const inDatabase = projections.filter((projection) => projection.loadInDatabase && fresh(projection));
  const others = projections.filter((projection) => !inDatabase.includes(projection));
  const types = [...new Set(others.flatMap((projection) => Object.keys(projection.handlers)))].sort();
  const [loaded, read] = await Promise.all([
    Promise.all(inDatabase.map((projection) => loadInDatabase(pool, schema, projection, upTo, table.notLoaded))),
    loadPass(pool, table.only(types, upTo), schema, others, { ...options, upTo }),
  ]);
  return read + loaded.reduce((sum, applied) => sum + applied, 0);
}

/**
 * Loads a scratch schema (a rebuild's, not live yet, which no one else writes) from its
 * projections' checkpoints to the head of `$all`, without the writer lock, in passes (loadPass).
 * With `storeTable`, the first pass reads the store's table (loadFromStoreTable). The last pass
 * reads the store from each projection's checkpoint: what was appended meanwhile, and one more
 * try, at once, for a projection that failed (a passing fault, a lost connection or a deadlock,
 * early in a long load would otherwise be replayed whole by the swap's final catch-up, under the
 * writer lock, blocking every command meanwhile). Only the failures still standing after it are
 * told to `onFailure`.
 */
export async function loadScratch(
  pool: pg.Pool,
  store: EventStore,
  schema: string,
  projections: Projection[],
  options: {
    backoff?: Backoff;
    onProgress?: (read: number) => void;
    onFailure?: (failure: AppliedFailure) => void;
    limit?: number;
    storeTable?: StoreTable;
  } = {},
): Promise<number> {
  let total = 0;
  const failures = new Map<string, AppliedFailure>();
  const pass = (): PassOptions => {
    const before = total;
    return {
      backoff: options.backoff ?? DEFAULT_BACKOFF,
      limit: options.limit ?? CATCH_UP_BATCH,
      onRead: (read) => options.onProgress?.(before + read),
      onFailure: (failure) => failures.set(failure.projection, failure),
    };
  };
  if (options.storeTable) {
    total += await loadFromStoreTable(pool, store, options.storeTable, schema, projections, pass());
    options.onProgress?.(total);
  } else {
    total += await loadPass(pool, store, schema, projections, pass());
  }
  total += await loadPass(pool, store, schema, projections, pass());
  if (failures.size > 0) {
    const statuses = await readStatuses(pool, schema);
    for (const failure of failures.values()) {
      if (statuses.get(failure.projection)?.failure) options.onFailure?.(failure);
    }
  }
  return total;
}

export { inTransaction };

export type RunnerOptions = {
  backoff?: Backoff;
  /** How often it looks for projections to catch up when nothing is scheduled. */
  idleCheckMs?: number;
};

export const describeFailure = ({ projection, failure, retryAt }: AppliedFailure) =>
  `projection ${projection} stopped at event ${failure.position} (${failure.type} in ${failure.streamId}): ` +
  `${failure.error}; retrying at ${retryAt.toISOString()}`;

/**
 * Keeps the live read models up to date. One reader of `$all` (`followAll`, with backpressure,
 * where the store has it), from the least checkpoint of the projections that follow it, feeds
 * every following projection; each batch is one
 * transaction, each projection's share of it a savepoint, so a projection that cannot apply an
 * event stops there alone. Stopped, new and rebuilt projections catch up on their own
 * (`catchUp`), with backoff after a failure, and follow again once at the head.
 */
export class ProjectionRunner {
  private subscription?: Subscription;
  private following?: AbortController;
  private timer?: NodeJS.Timeout;
  private catchingUp = false;
  private stopped = true;
  private readonly backoff: Backoff;
  private readonly idleCheckMs: number;

  constructor(
    private readonly pool: pg.Pool,
    private readonly store: EventStore,
    private readonly projections: Projection[],
    private readonly log: (message: string, error?: unknown) => void = () => {},
    options: RunnerOptions = {},
  ) {
    this.backoff = options.backoff ?? DEFAULT_BACKOFF;
    this.idleCheckMs = options.idleCheckMs ?? 5000;
  }

  start() {
    this.stopped = false;
    if (this.store.followAll) void this.follow();
    else this.subscribe();
    this.schedule(0);
  }

  /** With backpressure: the store hands over the next batch only once this one is applied. */
  private async follow() {
    const controller = new AbortController();
    this.following = controller;
    while (!controller.signal.aborted) {
      try {
        const position = await this.livePosition();
        await this.store.followAll?.(position, (batch) => this.applyLive(batch), { signal: controller.signal });
      } catch (error) {
        if (controller.signal.aborted) return;
        this.log('projection batch failed; retrying from the checkpoints', error);
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  }

  private subscribe() {
    this.subscription = defer(() => from(this.livePosition()))
      .pipe(
        switchMap((position) => this.store.subscribeToAll(position)),
        bufferTime(5, null, 500),
        filter((batch) => batch.length > 0),
        concatMap((batch) => this.applyLive(batch)),
        retry({
          delay: (error) => {
            this.log('projection batch failed; retrying from the checkpoints', error);
            return new Promise((resolve) => setTimeout(resolve, 1000));
          },
        }),
      )
      .subscribe();
  }

  stop() {
    this.stopped = true;
    this.following?.abort();
    this.subscription?.unsubscribe();
    clearTimeout(this.timer);
  }

  private async livePosition(): Promise<Position> {
    const statuses = [...(await readStatuses(this.pool, LIVE_SCHEMA)).values()];
    const following = statuses.filter((status) => status.following);
    if (following.length > 0) return minPosition(following.map((status) => status.position));
    // None follows yet: each will join at the head, which is at or after every checkpoint.
    return statuses.map((status) => status.position).reduce((a, b) => (comparePositions(a, b) > 0 ? a : b), START);
  }

  private async applyLive(batch: RecordedEvent[]) {
    const failures = await inTransaction(this.pool, async (sql) => {
      await lockWriter(sql, LIVE_SCHEMA);
      const statuses = await readStatuses(sql, LIVE_SCHEMA, true);
      const following = this.projections.filter((projection) => statuses.get(projection.name)?.following);
      const moved: MovedCheckpoint[] = [];
      const failed = await applyEvents(sql, batch, following, statuses, this.backoff, moved);
      // A batch with no failure only moved checkpoints: say where to, so waiters need not read them all.
      // A batch that moved none still notifies empty, as before (nothing to settle, one cheap read).
      await notifyCheckpoint(sql, LIVE_SCHEMA, failed.length === 0 ? moved : []);
      return failed;
    });
    for (const failure of failures) this.log(describeFailure(failure));
    if (failures.length > 0) this.schedule(Math.min(...failures.map((f) => f.retryAt.getTime() - Date.now())));
  }

  private schedule(delayMs: number) {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.catchUpNow(), Math.max(0, delayMs));
  }

  /** Catches up whatever does not follow the live subscription, then sleeps until the next retry. */
  private async catchUpNow() {
    if (this.catchingUp || this.stopped) return;
    this.catchingUp = true;
    let next = this.idleCheckMs;
    try {
      await catchUp(this.pool, this.store, LIVE_SCHEMA, this.projections, {
        follow: true,
        backoff: this.backoff,
        onFailure: (failure) => this.log(describeFailure(failure)),
        stopped: () => this.stopped,
      });
      for (const status of (await readStatuses(this.pool, LIVE_SCHEMA)).values()) {
        if (!status.following && status.retryAt) next = Math.min(next, status.retryAt.getTime() - Date.now());
      }
    } catch (error) {
      this.log('catching up a projection failed; trying again', error);
      next = Math.min(next, 1000);
    } finally {
      this.catchingUp = false;
      this.schedule(next);
    }
  }
}
