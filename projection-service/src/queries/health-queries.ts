import { healthAnswer } from '@agency/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type pg from 'pg';
import type { ProjectionFailure } from '../projection-runner';

/** Counting stops here: a lag this large reads as "at least". */
const LAG_CAP = 100_000;

type Row = {
  name: string;
  commit_position: string;
  prepare_position: string;
  following: boolean;
  failed_at: Date | null;
  failure: ProjectionFailure | null;
  attempts: number;
  retry_at: Date | null;
  lag: string | null;
};

/**
 * GET /api/health: `{ status }` for anyone ("ok", "degraded" while a projection is stopped at an
 * event it cannot apply, "unavailable" without a read model); an admin also gets every
 * projection's position, lag (events in the store after its checkpoint; null unless the events
 * are in this database) and failure.
 */
export async function healthQueries(
  fastify: FastifyInstance,
  { db, eventsInDatabase = true }: { db: pg.Pool; eventsInDatabase?: boolean },
) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.get('/api/health', { schema: { response: { 200: healthAnswer, 503: healthAnswer } } }, async (request, reply) => {
    const user = await app.authenticate(request).catch(() => undefined);
    // Lag is counted in the PostgreSQL store only; with EventStoreDB (whose positions es.events,
    // if a moved database still has it, does not share) it is null.
    const counted =
      eventsInDatabase && (await db.query("select to_regclass('es.events') is not null as present")).rows[0].present;
    const lag = counted
      ? `(select count(*) from (select 1 from es.events e
           where (e.transaction_id, e.global_position) > (p.commit_position::text::xid8, p.prepare_position)
           limit ${LAG_CAP}) behind)`
      : 'null';
    const result = await db
      .query<Row>(
        `select p.name, p.commit_position, p.prepare_position, p.following, p.failed_at, p.failure, p.attempts,
           p.retry_at, ${lag} as lag
         from read.projection_checkpoints p order by p.name`,
      )
      .catch(() => undefined);
    if (!result) return reply.status(503).send({ status: 'unavailable' });
    // The command side's reactors share the database (command.reactor_checkpoints): none yet is none stopped.
    const reactors = await db
      .query<Omit<Row, 'following' | 'lag'>>(
        `select name, commit_position, prepare_position, failed_at, failure, attempts, retry_at
           from command.reactor_checkpoints order by name`,
      )
      .then((found) => found.rows)
      .catch(() => []);
    const stopped = result.rows.some((row) => row.failure) || reactors.some((row) => row.failure);
    const status = stopped ? ('degraded' as const) : ('ok' as const);
    if (user?.role !== 'admin') return { status };
    const failureOf = (row: Pick<Row, 'failure' | 'failed_at' | 'attempts' | 'retry_at'>) =>
      row.failure
        ? {
            ...row.failure,
            since: row.failed_at?.toISOString() ?? null,
            attempts: row.attempts,
            nextRetryAt: row.retry_at?.toISOString() ?? null,
          }
        : null;
    return {
      status,
      projections: result.rows.map((row) => ({
        name: row.name,
        position: `${row.commit_position}/${row.prepare_position}`,
        lag: row.lag === null ? null : Number(row.lag),
        state: row.failure ? ('stalled' as const) : row.following ? ('live' as const) : ('catching up' as const),
        failure: failureOf(row),
      })),
      reactors: reactors.map((row) => ({
        name: row.name,
        position: `${row.commit_position}/${row.prepare_position}`,
        state: row.failure ? ('stalled' as const) : ('live' as const),
        failure: failureOf(row),
      })),
    };
  });
}
