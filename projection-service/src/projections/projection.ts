import type { RecordedEvent } from '@agency/platform';
import type pg from 'pg';

export type ProjectionHandler = (sql: pg.ClientBase, event: RecordedEvent) => Promise<unknown>;

/** A small module: the events it handles and the SQL for each. Tables are unqualified (search_path). */
export type Projection = { name: string; handlers: Record<string, ProjectionHandler> };
