import { comparePositions, type EventStore, type Position, type RecordedEvent } from '@agency/platform';
import type pg from 'pg';
import { bufferTime, concatMap, defer, filter, from, retry, type Subscription, switchMap } from 'rxjs';
import type { Projection, ProjectionHandler } from './projections/projection';

export const LIVE_SCHEMA = 'read';
export const CHECKPOINT_CHANNEL = 'projection_checkpoint';
/** Held by whoever writes read models, so a rebuild's swap never interleaves with a live batch. */
const WRITER_LOCK = 7412002;

export function handlersByType(projections: Projection[]) {
  const byType = new Map<string, ProjectionHandler[]>();
  for (const projection of projections) {
    for (const [type, handler] of Object.entries(projection.handlers)) {
      byType.set(type, [...(byType.get(type) ?? []), handler]);
    }
  }
  return byType;
}

export const quoteIdent = (name: string) => `"${name.replaceAll('"', '""')}"`;

export async function readCheckpoint(sql: pg.ClientBase | pg.Pool, schema: string, lock = false): Promise<Position> {
  const result = await sql.query(
    `select commit_position, prepare_position from ${quoteIdent(schema)}.checkpoint${lock ? ' for update' : ''}`,
  );
  const row = result.rows[0];
  return { commit: BigInt(row.commit_position), prepare: BigInt(row.prepare_position) };
}

/**
 * Applies events inside the caller's transaction, skipping any at or before the schema's
 * checkpoint (so nothing is applied twice, whoever delivered it), and moves the checkpoint.
 */
export async function applyEvents(
  sql: pg.ClientBase,
  schema: string,
  events: RecordedEvent[],
  handlers: Map<string, ProjectionHandler[]>,
): Promise<Position> {
  await sql.query('select pg_advisory_xact_lock($1)', [WRITER_LOCK]);
  await sql.query(`set local search_path to ${quoteIdent(schema)}`);
  let checkpoint = await readCheckpoint(sql, schema, true);
  for (const event of events) {
    if (comparePositions(event.position, checkpoint) <= 0) continue;
    for (const handle of handlers.get(event.type) ?? []) await handle(sql, event);
    checkpoint = event.position;
  }
  await sql.query('update checkpoint set commit_position = $1, prepare_position = $2', [
    checkpoint.commit.toString(),
    checkpoint.prepare.toString(),
  ]);
  if (schema === LIVE_SCHEMA) {
    await sql.query('select pg_notify($1, $2)', [CHECKPOINT_CHANNEL, `${checkpoint.commit}/${checkpoint.prepare}`]);
  }
  return checkpoint;
}

export async function inTransaction<T>(pool: pg.Pool, work: (sql: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    const result = await work(client);
    await client.query('commit');
    return result;
  } catch (error) {
    await client.query('rollback').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

/**
 * Keeps the live read models up to date: subscribes to `$all` from the stored checkpoint and
 * writes each batch and its checkpoint in one transaction. On any failure it starts again from
 * the stored checkpoint, which is exactly where the last committed batch ended.
 */
export class ProjectionRunner {
  private subscription?: Subscription;
  private readonly handlers: Map<string, ProjectionHandler[]>;

  constructor(
    private readonly pool: pg.Pool,
    private readonly store: EventStore,
    projections: Projection[],
    private readonly log: (message: string, error?: unknown) => void = () => {},
  ) {
    this.handlers = handlersByType(projections);
  }

  start() {
    this.subscription = defer(() => from(readCheckpoint(this.pool, LIVE_SCHEMA)))
      .pipe(
        switchMap((checkpoint) => this.store.subscribeToAll(checkpoint)),
        bufferTime(5, null, 500),
        filter((batch) => batch.length > 0),
        concatMap((batch) => inTransaction(this.pool, (sql) => applyEvents(sql, LIVE_SCHEMA, batch, this.handlers))),
        retry({
          delay: (error) => {
            this.log('projection batch failed; retrying from the checkpoint', error);
            return new Promise((resolve) => setTimeout(resolve, 1000));
          },
        }),
      )
      .subscribe();
  }

  stop() {
    this.subscription?.unsubscribe();
  }
}
