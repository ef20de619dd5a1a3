import {
  IMPORT_KINDS,
  type ImportKind,
  importAnswer,
  importBody,
  importTemplate,
  LIMITS,
  nonJsonAnswer,
  type SessionUser,
} from '@agency/contracts';
import { describeOnly, forbidden, invalidInput, notFound } from '@agency/platform';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type ImportOptions, runImport } from './import-run';

/**
 * Moving in (docs/import.md): a template per kind, and `POST /api/import`, which answers each
 * row's outcome (a dry run writes nothing) and brings the rows in through the command pipeline.
 * Admins only.
 */
export async function importRoutes(app: FastifyInstance, options: ImportOptions) {
  const admin = async (request: FastifyRequest) => {
    const user = await app.authenticate(request);
    if (user.role !== 'admin') throw forbidden();
    return user;
  };

  app.get(
    '/api/import/templates/:file',
    {
      schema: {
        response: { 200: nonJsonAnswer('text/csv', "A kind's template: its header row and an example row") },
      },
    },
    async (request, reply) => {
      await admin(request);
      const { file } = request.params as { file: string };
      const kind = IMPORT_KINDS.find((name) => file === `${name}.csv`);
      if (!kind) throw notFound('There is no such template: families.csv, tutors.csv or engagements.csv.');
      return (
        reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="${kind}-template.csv"`)
          // A byte-order mark: Excel then reads the file as UTF-8 (the £ of the example rate).
          .send(`\uFEFF${importTemplate(kind as ImportKind)}`)
      );
    },
  );

  const admins = new WeakMap<FastifyRequest, SessionUser>();
  app.post(
    '/api/import',
    {
      // The one route that takes a whole file: its own body limit (docs/limits.md).
      bodyLimit: LIMITS.maxImportBodyBytes,
      // Who asks is checked before the body is read: only an admin's file (up to that limit) is
      // ever parsed, never one that anybody without a session sends.
      onRequest: async (request) => {
        admins.set(request, await admin(request));
      },
      schema: { body: importBody, response: { 200: importAnswer } },
      validatorCompiler: describeOnly,
    },
    async (request) => {
      const user = admins.get(request) ?? (await admin(request));
      const parsed = importBody.safeParse(request.body ?? {});
      if (!parsed.success) throw invalidInput(parsed.error.issues);
      return runImport(parsed.data, user, options);
    },
  );
}
