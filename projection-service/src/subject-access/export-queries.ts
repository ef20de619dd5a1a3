import {
  type AgencyDetails,
  bookingDataExport,
  clientParams,
  familyDataExport,
  nonJsonAnswer,
  redactForRole,
} from '@agency/contracts';
import { type EventStore, forbidden, notFound } from '@agency/platform';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { zipSync } from 'fflate';
import type pg from 'pg';
import type { z } from 'zod';
import { agencyTime } from '../audit/recorded-events';
import { agencyDetailsOf } from '../read-models/agency/queries';
import { requireSignIn } from '../signed-in';
import { familySections, registrationSections, renderExportSummary, type Sections } from './export-summary';
import { familyExport } from './family-export';
import { registrationExport } from './registration-export';

/**
 * `GET /api/clients/{id}/export` (admins only): a subject-access export of everything held about
 * a family, as one zip holding `export.json` (every field) and `summary.pdf` (readable); and
 * `GET /api/workshops/registrations/{id}/export`, the same about a booking of no known family. A
 * zip rather than one JSON with the PDF in base64: the family opens both files as they are. The
 * zip is handed to the data subject and never passes the answers' field-visibility rule, so
 * export.json is parsed through its contract (subject-access-export.ts) first: what is not listed
 * there is not in the file (docs/personal-data.md).
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
    const json = Buffer.from(JSON.stringify(data, null, 2));
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

  /** One export route: `load` the subject's data (absent: 404), then the archive with its summary. */
  function exportRoute<T extends { exportedAt: string }>(
    url: string,
    about: { missing: string; file: string; title: string; whom: string },
    contract: z.ZodType<T>,
    load: (id: string) => Promise<Omit<T, 'exportedAt'> | undefined>,
    sections: (data: T) => Sections,
  ) {
    app.get(url, { schema: exportSchema }, async (request, reply) => {
      if (request.signedIn.role !== 'admin') throw forbidden('Exports of personal data are for admins.');
      const { id } = request.params;
      const loaded = await load(id);
      if (!loaded) throw notFound(about.missing);
      // Its fields as the contract lists them, and no other (an unlisted key is dropped).
      const data = contract.parse({ exportedAt: new Date().toISOString(), ...loaded });
      return archive(reply, `${about.file}-${id}`, data, (agency, madeAt) =>
        renderExportSummary({ title: about.title, whom: `${about.whom} ${id}` }, sections(data), agency, madeAt),
      );
    });
  }

  exportRoute(
    '/api/clients/:id/export',
    {
      missing: 'There is no such client.',
      file: 'family',
      title: 'Personal data held about your family',
      whom: 'family',
    },
    familyDataExport,
    (id) => familyExport(db, store, timeZone, id),
    familySections,
  );
  // A family's own export, from its login (docs/family-access.md): the same file, of its own
  // family only (the session's, never an id it sends), through the fields a family may see.
  app.get(
    '/api/family/export',
    { schema: { response: exportSchema.response }, config: { families: true } },
    async (request, reply) => {
      const { role, clientId } = request.signedIn;
      if (role !== 'family' || !clientId) throw forbidden('This export is for families.');
      const loaded = await familyExport(db, store, timeZone, clientId);
      if (!loaded) throw notFound('There is no such client.');
      const data = familyDataExport.parse(redactForRole('family', { exportedAt: new Date().toISOString(), ...loaded }));
      return archive(reply, `family-${clientId}`, data, (agency, madeAt) =>
        renderExportSummary(
          { title: 'Personal data held about your family', whom: `family ${clientId}` },
          familySections(data),
          agency,
          madeAt,
        ),
      );
    },
  );
  // A workshop booking of no known family is its own data subject, with its own export.
  exportRoute(
    '/api/workshops/registrations/:id/export',
    {
      missing: 'There is no such registration.',
      file: 'booking',
      title: 'Personal data held about your booking',
      whom: 'workshop booking',
    },
    bookingDataExport,
    (id) => registrationExport(db, store, timeZone, id),
    registrationSections,
  );
}
