import type { RecordedEvent } from '@agency/platform';
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
};

/** The handler of `type`, if the projection has one (never an inherited property). */
export const handlerFor = (projection: Projection, type: string): ProjectionHandler | undefined =>
  Object.hasOwn(projection.handlers, type) ? projection.handlers[type] : undefined;
