import {
  agencyMoneyModelAnswer,
  calendarDate,
  engagementMoneyModelAnswer,
  type MoneyModel,
  readsAsAdmin,
  type SessionUser,
} from '@agency/contracts';
import { todayIn } from '@agency/domain';
import { forbidden, notFound } from '@agency/platform';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type pg from 'pg';
import { z } from 'zod';
import { requireSignIn } from '../../signed-in';

type Today = { timeZone: string; clock: () => Date };
type Queryable = Pick<pg.Pool, 'query'>;

/**
 * The model that applies to each of these engagements' lessons on `date` (for a month: its first
 * day, since a choice applies to whole months), by the read model's `money_model_on` (see
 * docs/money-models.md). Engagements with no choice of their own get the agency's.
 */
export async function moneyModelsOn(
  db: Queryable,
  engagementIds: readonly string[],
  date: string,
): Promise<Map<string, MoneyModel>> {
  const found = await db.query<{ id: string; model: MoneyModel }>(
    'select id, money_model_on(id, $2::date) as model from unnest($1::text[]) as id',
    [[...new Set(engagementIds)], date],
  );
  return new Map(found.rows.map((row) => [row.id, row.model]));
}

/** The agency's terms on `date` (`money_terms_on`): the default before any choice. */
export async function agencyTermsOn(db: Queryable, date: string) {
  const found = await db.query<{ model: MoneyModel; vat_rate_bp: number; pay_after_family_pays: boolean }>(
    'select model, vat_rate_bp, pay_after_family_pays from money_terms_on($1::date)',
    [date],
  );
  const row = found.rows[0]!;
  return { model: row.model, vatRateBp: row.vat_rate_bp, payAfterFamilyPays: row.pay_after_family_pays };
}

type AgencyRow = { from: string; model: MoneyModel; vat_rate_bp: number; pay_after_family_pays: boolean };
const agencyChoice = (row: AgencyRow) => ({
  from: row.from,
  model: row.model,
  vatRate: row.vat_rate_bp / 100,
  payAfterFamilyPays: row.pay_after_family_pays,
});

const engagementParams = z.object({ engagementId: z.string().min(1).max(200) });
/** `?on=YYYY-MM-DD`: the day asked about (today in the agency's time zone by default). */
const onQuery = z.object({ on: calendarDate.optional() });

/**
 * `GET /api/agency/money-model` (admins and auditors) and `GET /api/engagements/money-model/:id`
 * (the office; a tutor their own engagement's): what the Money model screens show, as of today or
 * of the day `?on=` names.
 */
export async function moneyModelQueries(fastify: FastifyInstance, { db, today }: { db: pg.Pool; today: Today }) {
  requireSignIn(fastify);
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  const dayOf = (query: z.infer<typeof onQuery>) => query.on ?? todayIn(today.timeZone, today.clock());

  app.get(
    '/api/agency/money-model',
    { schema: { querystring: onQuery, response: { 200: agencyMoneyModelAnswer } } },
    async (request) => {
      if (!readsAsAdmin(request.signedIn.role)) throw forbidden('The money model settings are for the office.');
      const date = dayOf(request.query);
      const rows = (
        await db.query<AgencyRow>(
          `select from_date::text as "from", model, vat_rate_bp, pay_after_family_pays
           from money_model_agency_choices order by from_date`,
        )
      ).rows;
      const current = rows.filter((row) => row.from <= date).at(-1);
      const terms = await agencyTermsOn(db, date);
      return {
        today: date,
        inForce: current
          ? agencyChoice(current)
          : {
              from: null,
              model: terms.model,
              vatRate: terms.vatRateBp / 100,
              payAfterFamilyPays: terms.payAfterFamilyPays,
            },
        upcoming: rows.filter((row) => row.from > date).map(agencyChoice),
        choices: rows.map(agencyChoice),
      };
    },
  );

  app.get(
    '/api/engagements/money-model/:engagementId',
    { schema: { params: engagementParams, querystring: onQuery, response: { 200: engagementMoneyModelAnswer } } },
    async (request) => {
      const { engagementId } = request.params;
      await checkMayRead(db, request.signedIn, engagementId);
      const date = dayOf(request.query);
      // Each date from which the agency's or this engagement's choices change anything, with the
      // model then and whether it is the engagement's own.
      const changes = (
        await db.query<{ from: string; model: MoneyModel; own: boolean }>(
          `select d.from_date::text as "from", money_model_on($1, d.from_date) as model,
                  coalesce((select e.model is not null from money_model_engagement_choices e
                             where e.engagement_id = $1 and e.from_date <= d.from_date
                             order by e.from_date desc limit 1), false) as own
             from (select $2::date as from_date
                   union select from_date from money_model_agency_choices where from_date > $2::date
                   union select from_date from money_model_engagement_choices
                          where engagement_id = $1 and from_date > $2::date) d
            order by d.from_date`,
          [engagementId, date],
        )
      ).rows;
      const [now, ...later] = changes;
      const upcoming: typeof later = [];
      let previous = now!;
      for (const change of later) {
        if (change.model !== previous.model || change.own !== previous.own) upcoming.push(change);
        previous = change;
      }
      const choices = (
        await db.query<{ from: string; model: MoneyModel | null }>(
          `select from_date::text as "from", model from money_model_engagement_choices
            where engagement_id = $1 order by from_date`,
          [engagementId],
        )
      ).rows;
      return { engagementId, today: date, inForce: { model: now!.model, own: now!.own }, upcoming, choices };
    },
  );
}

/** The office reads any engagement's model; a tutor only their own engagement's; a family none. */
async function checkMayRead(db: pg.Pool, user: SessionUser, engagementId: string) {
  if (user.role === 'family') throw forbidden('The money model is for the office.');
  const found = await db.query<{ tutor_id: string }>('select tutor_id from engagements where id = $1', [engagementId]);
  const row = found.rows[0];
  if (!row || (user.role === 'tutor' && user.tutorId !== row.tutor_id)) {
    throw notFound('There is no such engagement.');
  }
}
