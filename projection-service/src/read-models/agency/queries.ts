import { type AgencyDetails, agencyDetailsAnswer, agencyDetailsData, seedAgencyDetails } from '@agency/contracts';
import { toPounds } from '@agency/domain';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type pg from 'pg';
import { requireSignIn } from '../../signed-in';

/** The agency's details in force: the seed until the first start's event is projected. */
export async function agencyDetailsOf(db: pg.Pool): Promise<AgencyDetails> {
  const row = (await db.query('select details from agency_details where id = 1')).rows[0];
  return row ? agencyDetailsData.parse(row.details) : seedAgencyDetails;
}

/**
 * `GET /api/agency`: the agency's own details, for the settings screen and for the invoices page's
 * notice, which every signed-in user sees (the bank account a tutor pays commission into).
 */
export async function agencyQueries(
  fastify: FastifyInstance,
  { db, retentionYears }: { db: pg.Pool; retentionYears: number },
) {
  requireSignIn(fastify);
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.get('/api/agency', { schema: { response: { 200: agencyDetailsAnswer } } }, async () => {
    const { defaultConsultationPence, ...details } = await agencyDetailsOf(db);
    return { ...details, defaultConsultationAmount: toPounds(defaultConsultationPence), retentionYears };
  });
}
