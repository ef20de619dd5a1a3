import { agencyMoneyModelBody, engagementMoneyModelBody } from '@agency/contracts';
import { engagement, moneyModel, timesheet, todayIn } from '@agency/domain';
import { HttpError, notFound } from '@agency/platform';
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
      const today = todayIn(timeZone, now);
      // This month invoiced early already: its lessons are on the tutor's issued invoice, which a
      // choice from this month would contradict (issued documents never change meaning).
      if (fromOf(body.from) === moneyModel.firstOfMonth(today)) {
        const sheet = await load(timesheet.timesheetStream(found.tutorId, body.from), timesheet.timesheetDecider);
        if (sheet.status === 'locked') {
          throw new HttpError(
            409,
            'conflict',
            `The tutor's invoice for ${timesheet.monthName(body.from)} is issued already: choose a model from next month on.`,
            { from: 'This month is invoiced already' },
          );
        }
      }
      const saved = await run(moneyModel.engagementModelStream(engagementId), moneyModel.engagementModelDecider, {
        type: 'ChooseEngagementMoneyModel',
        engagementId,
        choice: { model: body.model, from: fromOf(body.from) },
        today,
        actor: { role: user.role, tutorId: user.tutorId },
      });
      const recorded = saved.choices.findLast((held) => held.from === fromOf(body.from));
      return { engagementId, moneyModel: { model: recorded?.model ?? null, from: body.from } };
    },
  });
}
