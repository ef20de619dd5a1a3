import type { ProductEvent } from '@agency/contracts';
import type { Position, RecordedEvent } from '@agency/platform';
import type pg from 'pg';

export type ProjectionHandler = (sql: pg.ClientBase, event: RecordedEvent) => Promise<unknown>;

/** A small module: the events it handles and the SQL for each. Tables are unqualified (search_path). */
export type Projection = {
  name: string;
  /**
   * Bump when a handler changes what it writes: the version is part of the read-model
   * fingerprint, so the next start rebuilds the read models from the events.
   */
  version: number;
  /** The read-model migrations (file names) that create this projection's tables, and no other's. */
  migrations?: string[];
  handlers: Record<string, ProjectionHandler>;
  /**
   * Optional: the handlers' effects for a run of events at once, set-based (one statement per
   * table and batch instead of one per event), for catch-up and rebuilds. When it throws, the
   * runner applies the run event by event, which stops exactly at the event at fault.
   */
  applyBatch?: BatchHandler;
  /**
   * Optional: its large tables that its handlers only write, or look up by a unique key (never
   * by a secondary index). A full rebuild loads these without their secondary indexes and makes
   * those once at the end (one sort each instead of an insertion per row). Every other table keeps
   * its indexes through the load: a handler that looks rows up by one would scan the whole table
   * for every event without it.
   */
  bulkTables?: string[];
  /**
   * Optional: for a rebuild from the PostgreSQL store of the same database, the effect of every
   * event up to `upTo` on its fresh (empty) tables, applied by the database itself from
   * `es.events` (set-based SQL) instead of event by event in Node. `upTo` is at or before the
   * head a reader of `$all` saw (below its horizon), so no event can still appear before it.
   * Answers how many events it applied; throws (its transaction is then undone) whenever it
   * cannot apply them exactly as the handlers would, and the runner applies them as ever.
   */
  loadInDatabase?: (sql: pg.ClientBase, upTo: Position) => Promise<number>;
};

export type BatchHandler = (sql: pg.ClientBase, events: RecordedEvent[]) => Promise<unknown>;

type AnyEvent = { type: string; data: unknown };

/** A recorded event whose `type` and `data` are those of one event of the union `E`. */
export type RecordedEventOf<E extends AnyEvent> = E extends AnyEvent
  ? Omit<RecordedEvent, 'type' | 'data'> & { type: E['type']; data: E['data'] }
  : never;

/** One handler per event type of `E` (any may be left out), each given that type's payload. */
export type TypedHandlers<E extends AnyEvent> = {
  [T in E['type']]?: (sql: pg.ClientBase, event: RecordedEventOf<Extract<E, { type: T }>>) => Promise<unknown>;
};

/**
 * A projection typed over the events it handles (by default any event in the contracts): a
 * handler for a type not in `E` is a compile error, and each handler's `data` has the payload
 * type of the contract schema of its event type, so no `data as …` cast is needed.
 */
export function defineProjection<E extends AnyEvent = ProductEvent>(definition: {
  name: string;
  version: number;
  migrations: string[];
  handlers: TypedHandlers<E>;
  applyBatch?: BatchHandler;
  bulkTables?: string[];
  loadInDatabase?: Projection['loadInDatabase'];
}): Projection {
  // The one place the payload type is asserted: the store hands the runner events upcast to the
  // current version of their type's contract, and the runner calls a handler only for its type.
  return { ...definition, handlers: definition.handlers as unknown as Record<string, ProjectionHandler> };
}

/** The handler of `type`, if the projection has one (never an inherited property). */
export const handlerFor = (projection: Projection, type: string): ProjectionHandler | undefined =>
  Object.hasOwn(projection.handlers, type) ? projection.handlers[type] : undefined;
