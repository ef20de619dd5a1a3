import { z } from 'zod';
import { calendarDate } from '../values';
import { defineEvent, type EventOf } from './define';

/**
 * How the agency is paid for a lesson (docs/money-models.md):
 * - `tutor-pays-commission`: the tutor collects from the family; the agency invoices the tutor its
 *   commission (the spec's model, the default);
 * - `agency-sells-tuition`: the agency invoices the family for the lessons (VAT as the agency's
 *   setting says) and pays the tutor their earnings less the agency's share;
 * - `introduction`: the tutor bills the family; the agency invoices the family its fee (the
 *   commission on the month's lessons); no money passes between agency and tutor.
 */
export const moneyModels = ['tutor-pays-commission', 'agency-sells-tuition', 'introduction'] as const;
export const moneyModel = z.enum(moneyModels);
export type MoneyModel = z.infer<typeof moneyModel>;

/**
 * The agency's money model from `from` (the first day of a month) on, stream `money-model-agency`:
 * never retroactive, so `from` is never before the month it was recorded in. `vatRateBp` is the
 * VAT charged on the whole fee when the agency sells the tuition (0: exempt; 2000 = 20 %), and
 * `payAfterFamilyPays` holds a lesson's pay until the family invoice that holds it is paid.
 */
export const AgencyMoneyModelChosen = defineEvent(
  'AgencyMoneyModelChosen',
  1,
  z.object({
    model: moneyModel,
    from: calendarDate,
    vatRateBp: z.number().int().min(0).max(10_000),
    payAfterFamilyPays: z.boolean(),
  }),
);

/**
 * One engagement's own money model from `from` (the first day of a month) on, stream
 * `money-model-engagement-{engagementId}`; `model: null` goes back to the agency's.
 */
export const EngagementMoneyModelChosen = defineEvent(
  'EngagementMoneyModelChosen',
  1,
  z.object({ engagementId: z.string(), model: moneyModel.nullable(), from: calendarDate }),
);

export const moneyModelEvents = [AgencyMoneyModelChosen, EngagementMoneyModelChosen] as const;
export type MoneyModelEvent = EventOf<(typeof moneyModelEvents)[number]>;
