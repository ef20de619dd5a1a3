import type { MoneyModelEvent } from '@agency/contracts';
import { defineProjection } from '../projection';

/** Every money-model choice (docs/money-models.md), for `money_model_on` and the screens. */
export const moneyModelsProjection = defineProjection<MoneyModelEvent>({
  name: 'money-models',
  version: 1,
  migrations: ['090_money_models.sql'],
  handlers: {
    AgencyMoneyModelChosen: (sql, { data }) =>
      sql.query(
        `insert into money_model_agency_choices (from_date, model, vat_rate_bp, pay_after_family_pays)
         values ($1, $2, $3, $4)
         on conflict (from_date) do update
           set model = excluded.model, vat_rate_bp = excluded.vat_rate_bp,
               pay_after_family_pays = excluded.pay_after_family_pays`,
        [data.from, data.model, data.vatRateBp, data.payAfterFamilyPays],
      ),
    EngagementMoneyModelChosen: (sql, { data }) =>
      sql.query(
        `insert into money_model_engagement_choices (engagement_id, from_date, model) values ($1, $2, $3)
         on conflict (engagement_id, from_date) do update set model = excluded.model`,
        [data.engagementId, data.from, data.model],
      ),
  },
});
