import { type AgencyDetails, clientParams, nonJsonAnswer } from '@agency/contracts';
import { type EventStore, forbidden, notFound } from '@agency/platform';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { zipSync } from 'fflate';
import type pg from 'pg';
import { agencyTime } from '../audit/recorded-events';
import { agencyDetailsOf } from '../read-models/agency/queries';
import { requireSignIn } from '../signed-in';
import { familySections, registrationSections, renderExportSummary } from './export-summary';
import { familyExport } from './family-export';
import { registrationExport } from './registration-export';

/**
 * `GET /api/clients/{id}/export` (admins only): a subject-access export of everything held about
 * a family, as one zip holding `export.json` (every field) and `summary.pdf` (readable); and
 * `GET /api/workshops/registrations/{id}/export`, the same about a booking of no known family. A
 * zip rather than one JSON with the PDF in base64: the family opens both files as they are.
 */
export async function exportQueries(
  fastify: FastifyInstance,
  { db, store, timeZone }: { db: pg.Pool; store: EventStore; timeZone: string },
) {
  requireSignIn(fastify);
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  /** The archive: export.json (every field) and summary.pdf (readable), downloaded as `{name}-export.zip`. */
  async function archive(
    reply: FastifyReply,
    name: string,
    data: object,
    summary: (agency: AgencyDetails, madeAt: string) => Promise<Buffer>,
  ) {
    const pdf = await summary(await agencyDetailsOf(db), agencyTime(new Date(), timeZone));
    const json = Buffer.from(JSON.stringify({ exportedAt: new Date().toISOString(), ...data }, null, 2));
    const zip = zipSync({ 'export.json': json, 'summary.pdf': pdf });
    return reply
      .type('application/zip')
      .header('content-disposition', `attachment; filename="${name}-export.zip"`)
      .header('cache-control', 'private, no-store')
      .send(Buffer.from(zip));
  }

  const exportSchema = {
    params: clientParams,
    response: {
      200: nonJsonAnswer('application/zip', 'A zip of export.json (every field) and summary.pdf (readable)'),
    },
  };

  app.get('/api/clients/:id/export', { schema: exportSchema }, async (request, reply) => {
    if (request.signedIn.role !== 'admin') throw forbidden('Exports of personal data are for admins.');
    const data = await familyExport(db, store, timeZone, request.params.id);
    if (!data) throw notFound('There is no such client.');
    return archive(reply, `family-${request.params.id}`, data, (agency, madeAt) =>
      renderExportSummary(
        { title: 'Personal data held about your family', whom: `family ${request.params.id}` },
        familySections(data),
        agency,
        madeAt,
      ),
    );
  });

  // A workshop booking of no known family is its own data subject, with its own export.
  app.get('/api/workshops/registrations/:id/export', { schema: exportSchema }, async (request, reply) => {
    if (request.signedIn.role !== 'admin') throw forbidden('Exports of personal data are for admins.');
    const data = await registrationExport(db, store, timeZone, request.params.id);
    if (!data) throw notFound('There is no such registration.');
    return archive(reply, `booking-${request.params.id}`, data, (agency, madeAt) =>
      renderExportSummary(
        { title: 'Personal data held about your booking', whom: `workshop booking ${request.params.id}` },
        registrationSections(data),
        agency,
        madeAt,
      ),
    );
  });
}
