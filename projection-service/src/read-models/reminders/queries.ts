import { readsAsAdmin, reminderScheduleAnswer } from '@agency/contracts';
import { toPounds } from '@agency/domain';
import { forbidden } from '@agency/platform';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type pg from 'pg';
import { requireSignIn } from '../../signed-in';
import { penceFrom } from '../money-columns';

/** `GET /api/agency/reminders`: the reminder schedule and late fee, for the settings screen (admins; auditors read it). */
export async function reminderQueries(fastify: FastifyInstance, { db }: { db: pg.Pool }) {
  requireSignIn(fastify);
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.get('/api/agency/reminders', { schema: { response: { 200: reminderScheduleAnswer } } }, async (request) => {
    if (!readsAsAdmin(request.signedIn.role)) throw forbidden('The reminder settings are for the office.');
    const row = (await db.query('select days, late_fee_pence from reminder_schedule where id = 1')).rows[0];
    return row
      ? { days: row.days as number[], lateFee: toPounds(penceFrom(row.late_fee_pence)) }
      : { days: [], lateFee: 0 };
  });
}
