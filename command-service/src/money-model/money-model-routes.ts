import { agencyMoneyModelBody, engagementMoneyModelBody } from '@agency/contracts';
import { engagement, moneyModel, todayIn } from '@agency/domain';
import { notFound } from '@agency/platform';
import type { FastifyInstance } from 'fastify';
import { type CommandDependencies, commandRoute } from '../pipeline/command-pipeline';

export type MoneyModelRouteOptions = { deps: CommandDependencies; timeZone: string };

/** A choice's month as the streams hold it: its first day. */
const fromOf = (month: string) => `${month}-01`;

/**
 * Settings → Money model and an engagement's own model (docs/money-models.md), admins only:
 * - `POST /api/agency/money-model`: the agency's model, VAT and pay hold from a month on;
 * - `POST /api/engagements/money-model/:engagementId`: the engagement's own model from a month on,
 *   or (`model: null`) the agency's again.
 * "Today", which no choice may reach back before, is the pipeline's clock in the agency's time zone.
 */
export async function moneyModelRoutes(app: FastifyInstance, { deps, timeZone }: MoneyModelRouteOptions) {
  commandRoute(app, deps, {
    url: '/api/agency/money-model',
    roles: ['admin'],
    body: agencyMoneyModelBody,
    handle: async ({ body }, { run, user, now }) => {
      const choice = {
        model: body.model,
        from: fromOf(body.from),
        vatRateBp: body.vatRate * 100,
        payAfterFamilyPays: body.payAfterFamilyPays,
      };
      const saved = await run(moneyModel.agencyModelStream(), moneyModel.agencyModelDecider, {
        type: 'ChooseAgencyMoneyModel',
        choice,
        today: todayIn(timeZone, now),
        actor: { role: user.role, tutorId: user.tutorId },
      });
      // The choice as recorded (or as the stream already held it): the same answer on every retry.
      const recorded = saved.choices.findLast((held) => held.from === choice.from)!;
      return {
        moneyModel: {
          model: recorded.model,
          from: body.from,
          vatRate: recorded.vatRateBp / 100,
          payAfterFamilyPays: recorded.payAfterFamilyPays,
        },
      };
    },
  });

  commandRoute<typeof engagementMoneyModelBody, { engagementId: string }>(app, deps, {
    url: '/api/engagements/money-model/:engagementId',
    roles: ['admin'],
    body: engagementMoneyModelBody,
    handle: async ({ body, params }, { run, load, user, now }) => {
      const { engagementId } = params;
      // The engagement from its own stream (never a read model that may lag): an unknown id is
      // refused before anything is written.
      const found = await load(engagement.engagementStream(engagementId), engagement.engagementDecider);
      if (found.status === 'none') throw notFound('There is no such engagement.');
      const saved = await run(moneyModel.engagementModelStream(engagementId), moneyModel.engagementModelDecider, {
        type: 'ChooseEngagementMoneyModel',
        engagementId,
        choice: { model: body.model, from: fromOf(body.from) },
        today: todayIn(timeZone, now),
        actor: { role: user.role, tutorId: user.tutorId },
      });
      const recorded = saved.choices.findLast((held) => held.from === fromOf(body.from));
      return { engagementId, moneyModel: { model: recorded?.model ?? null, from: body.from } };
    },
  });
}
