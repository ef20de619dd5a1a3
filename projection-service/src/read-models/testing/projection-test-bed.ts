import type { ProductEvent } from '@agency/contracts';
import { PostgresEventStore } from '@agency/platform';
import { createTestDatabase } from '@agency/scripts/testing/test-database';
import pg from 'pg';
import type { Projection } from '../projection';
import { rebuildReadModels } from '../read-schema';

const metadata = { userId: 'u-test', role: 'admin', commandId: 'c', correlationId: 'c', causationId: 'c' };

/** An event of the contracts, typed by its type, and the stream it is recorded in. */
export type GivenEvent = ProductEvent & { streamId: string };

/**
 * Given these events, these rows: a fresh database and event store, in which `given` records
 * events and builds the read models of `projections` from them (as `npm run rebuild` does), and
 * `rows` reads the live read-model schema.
 */
export async function projectionTestBed(projections: Projection[]) {
  const database = await createTestDatabase();
  const store = await PostgresEventStore.connect(database.url);
  const pool = new pg.Pool({ connectionString: database.url, options: '-c search_path=read' });
  return {
    async given(...events: GivenEvent[]) {
      for (const { streamId, type, data } of events) {
        await store.appendToStream(streamId, [{ type, data, metadata }], { expectedRevision: 'any' });
      }
      const { failures } = await rebuildReadModels(pool, store, projections);
      if (failures.length > 0) throw new Error(failures.map((f) => f.failure.error).join('; '));
    },
    /** Builds the read models again from every event recorded so far, with `others` (say, a variant). */
    async rebuild(others: Projection[]) {
      const { failures } = await rebuildReadModels(pool, store, others);
      if (failures.length > 0) throw new Error(failures.map((f) => f.failure.error).join('; '));
    },
    /** Every row of every read-model table as JSON, sorted: two builds compare equal when they wrote the same. */
    async snapshot() {
      const tables = await pool.query(
        `select tablename from pg_tables where schemaname = 'read'
            and tablename not in ('projection_checkpoints', 'read_model_info') order by tablename`,
      );
      const snapshot: Record<string, string[]> = {};
      for (const { tablename } of tables.rows) {
        const rows = await pool.query(`select to_jsonb(t)::text as row from "${tablename}" t order by 1`);
        snapshot[tablename] = rows.rows.map((row) => row.row);
      }
      return snapshot;
    },
    async rows(text: string, params: unknown[] = []) {
      return (await pool.query(text, params)).rows;
    },
    async close() {
      await store.close();
      await pool.end();
      await database.drop();
    },
  };
}
