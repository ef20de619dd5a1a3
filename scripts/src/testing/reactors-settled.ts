import type pg from 'pg';
import { expect, vi } from 'vitest';

/**
 * Waits until every reactor has reacted to the whole log (its checkpoint at the last event) and
 * none is stopped at an event: then whatever follows from the commands so far (credits, invoices,
 * e-mails) has happened. A condition, polled; never a fixed sleep.
 */
export async function reactorsSettled(db: pg.Pool, timeout = 10_000) {
  await vi.waitFor(
    async () => {
      const result = await db.query(
        `with head as (
           select transaction_id::text::bigint as commit, global_position as prepare from es.events
            order by transaction_id desc, global_position desc limit 1)
         select name, failure, (commit_position, prepare_position) >= (head.commit, head.prepare) as caught_up
           from command.reactor_checkpoints, head`,
      );
      expect(result.rows.filter((row) => row.failure || !row.caught_up)).toEqual([]);
    },
    { timeout, interval: 20 },
  );
}
