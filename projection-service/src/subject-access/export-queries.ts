import { clientParams } from '@agency/contracts';
import { type EventStore, forbidden, notFound } from '@agency/platform';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { zipSync } from 'fflate';
import type pg from 'pg';
import { agencyTime } from '../audit/recorded-events';
import { agencyDetailsOf } from '../read-models/agency/queries';
import { requireSignIn } from '../signed-in';
import { renderExportSummary } from './export-summary';
import { familyExport } from './family-export';

/**
 * `GET /api/clients/{id}/export` (admins only): a subject-access export of everything held about
 * a family, as one zip holding `export.json` (every field) and `summary.pdf` (readable). A zip
 * rather than one JSON with the PDF in base64: the family opens both files as they are.
 */
export async function exportQueries(
  fastify: FastifyInstance,
  { db, store, timeZone }: { db: pg.Pool; store: EventStore; timeZone: string },
) {
  requireSignIn(fastify);
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.get('/api/clients/:id/export', { schema: { params: clientParams } }, async (request, reply) => {
    if (request.signedIn.role !== 'admin') throw forbidden('Exports of personal data are for admins.');
    const data = await familyExport(db, store, timeZone, request.params.id);
    if (!data) throw notFound('There is no such client.');
    const madeAt = agencyTime(new Date(), timeZone);
    const summary = await renderExportSummary(data, await agencyDetailsOf(db), madeAt);
    const json = Buffer.from(JSON.stringify({ exportedAt: new Date().toISOString(), ...data }, null, 2));
    const zip = zipSync({ 'export.json': json, 'summary.pdf': summary });
    return reply
      .type('application/zip')
      .header('content-disposition', `attachment; filename="family-${request.params.id}-export.zip"`)
      .header('cache-control', 'private, no-store')
      .send(Buffer.from(zip));
  });
}
