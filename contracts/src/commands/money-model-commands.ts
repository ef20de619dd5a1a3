import { z } from 'zod';
import { moneyModel } from '../events/money-model-events';
import { calendarDate, calendarMonth, commandId } from '../values';
import { numberFromForm } from './engagement-commands';

/**
 * `POST /api/agency/money-model` (admins): how the agency is paid from the first day of month
 * `from` (`YYYY-MM`) on, never a month before the current one (docs/money-models.md). `vatRate` is
 * a percentage, exempt (0) or the standard rate (20), charged on the whole fee when the agency
 * sells the tuition; `payAfterFamilyPays` holds a lesson's pay until the family invoice that holds
 * it is paid.
 */
export const agencyMoneyModelBody = z.object({
  commandId,
  model: moneyModel,
  from: calendarMonth,
  vatRate: numberFromForm('VAT rate is required', 'VAT rate').pipe(
    z.number().int('VAT is exempt (0 %) or the standard rate (20 %)').min(0).max(100),
  ),
  payAfterFamilyPays: z.boolean({ error: 'Pay after the family pays must be true or false' }).default(false),
});
export type AgencyMoneyModelBody = z.input<typeof agencyMoneyModelBody>;

/**
 * `POST /api/engagements/money-model/:engagementId` (admins): the engagement's own money model
 * from the first day of month `from` on; `model: null` goes back to the agency's.
 */
export const engagementMoneyModelBody = z.object({
  commandId,
  model: moneyModel.nullable(),
  from: calendarMonth,
});
export type EngagementMoneyModelBody = z.input<typeof engagementMoneyModelBody>;

/** One recorded choice: from its first day on; the engagement's `model` is null for "the agency's again". */
export const agencyMoneyModelChoice = z.object({
  from: calendarDate,
  model: moneyModel,
  vatRate: z.number(),
  payAfterFamilyPays: z.boolean(),
});
export const engagementMoneyModelChoice = z.object({ from: calendarDate, model: moneyModel.nullable() });

/**
 * `GET /api/agency/money-model` (admins and auditors): the terms in force today (the default
 * before any choice), the changes still to come with their dates, and every choice recorded.
 */
export const agencyMoneyModelAnswer = z.object({
  today: calendarDate,
  inForce: agencyMoneyModelChoice.extend({ from: calendarDate.nullable() }),
  upcoming: z.array(agencyMoneyModelChoice),
  choices: z.array(agencyMoneyModelChoice),
});
export type AgencyMoneyModelAnswer = z.infer<typeof agencyMoneyModelAnswer>;

/**
 * `GET /api/engagements/money-model/:engagementId` (office roles and the engagement's tutor): the
 * model that applies to its lessons today and whether it is the engagement's own, its upcoming
 * changes (its own or the agency's) and its own choices.
 */
export const engagementMoneyModelAnswer = z.object({
  engagementId: z.string(),
  today: calendarDate,
  inForce: z.object({ model: moneyModel, own: z.boolean() }),
  upcoming: z.array(z.object({ from: calendarDate, model: moneyModel, own: z.boolean() })),
  choices: z.array(engagementMoneyModelChoice),
});
export type EngagementMoneyModelAnswer = z.infer<typeof engagementMoneyModelAnswer>;
