import { historyAnswer, historyParams, mayReadHistoryOf } from '@agency/contracts';
import { type EventStore, forbidden, notFound } from '@agency/platform';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type pg from 'pg';
import { requireSignIn } from '../signed-in';
import { streamViews } from './recorded-events';

/**
 * `GET /api/history/{streamId}`: every event of any stream, read from the event store itself
 * (never a read model's copy), in order, with when, who, what changed in words and the
 * correlation id. Admins and auditors read any stream; partners the tutor-related ones.
 */
export async function historyQueries(
  fastify: FastifyInstance,
  { db, store, timeZone }: { db: pg.Pool; store: EventStore; timeZone: string },
) {
  requireSignIn(fastify);
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/api/history/:streamId',
    { schema: { params: historyParams, response: { 200: historyAnswer } } },
    async (request) => {
      const { streamId } = request.params;
      if (!mayReadHistoryOf(request.signedIn.role, streamId)) throw forbidden('History is for admins and auditors.');
      const events = await store.readStream(streamId);
      if (events.length === 0) throw notFound('There is no such stream.');
      return { streamId, events: await streamViews(db, timeZone, events) };
    },
  );
}
