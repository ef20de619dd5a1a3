import type { MoneyModel, MoneyModelEvent } from '@agency/contracts';
import { type Decider, DomainError } from '../shared/decider';
import { checkDate, checkId } from '../shared/limits';
import type { Actor } from '../timesheet/timesheet';

/**
 * Which money model applies to a lesson (docs/money-models.md): the agency's choice in force on the
 * lesson's date, unless its engagement has its own. A choice applies from the first day of a month,
 * never before the month it was recorded in, so a document already issued never changes meaning.
 */
export type AgencyTerms = { model: MoneyModel; vatRateBp: number; payAfterFamilyPays: boolean };

/** What applies before an agency chooses: the spec's model, no VAT, pay not held. */
export const DEFAULT_TERMS: AgencyTerms = { model: 'tutor-pays-commission', vatRateBp: 0, payAfterFamilyPays: false };

export type AgencyChoice = AgencyTerms & { from: string };
export type EngagementChoice = { model: MoneyModel | null; from: string };

/** Each stream's choices in the order recorded: a later choice for the same date replaces the earlier one. */
export type AgencyModelState = { choices: readonly AgencyChoice[] };
export type EngagementModelState = { choices: readonly EngagementChoice[] };

export const agencyModelStream = () => 'money-model-agency';
export const engagementModelStream = (engagementId: string) => `money-model-engagement-${engagementId}`;

/** The VAT rates an agency may charge on the whole fee: exempt, or the UK standard rate. */
export const VAT_RATES_BP = [0, 2000] as const;

/** The month a date falls in as its first day (`2026-03-14` → `2026-03-01`). */
export const firstOfMonth = (date: string) => `${date.slice(0, 7)}-01`;

/** The choice in force on `date`: the latest-recorded choice among those with the latest `from` ≤ date. */
function inForce<C extends { from: string }>(choices: readonly C[], date: string): C | undefined {
  let found: C | undefined;
  for (const choice of choices) if (choice.from <= date && (!found || choice.from >= found.from)) found = choice;
  return found;
}

/** The agency's terms on `date`. */
export const agencyTermsOn = (state: AgencyModelState, date: string): AgencyTerms => {
  const choice = inForce(state.choices, date);
  return choice
    ? { model: choice.model, vatRateBp: choice.vatRateBp, payAfterFamilyPays: choice.payAfterFamilyPays }
    : DEFAULT_TERMS;
};

/** The terms that apply to one engagement's lesson on `date`: the agency's, with the engagement's own model if it has one. */
export function termsOn(agency: AgencyModelState, engagement: EngagementModelState, date: string): AgencyTerms {
  const terms = agencyTermsOn(agency, date);
  const own = inForce(engagement.choices, date);
  return own?.model ? { ...terms, model: own.model } : terms;
}

const refuse = (field: string, message: string): never => {
  throw new DomainError('invalid', `${message}.`, { [field]: message });
};

/** A choice starts on the first of a month, not before the month it is recorded in (rule 5: issued documents never change). */
function checkFrom(from: string, today: string) {
  checkDate(from, 'from');
  if (from !== firstOfMonth(from)) refuse('from', 'A money model applies from the first day of a month');
  if (from < firstOfMonth(today)) refuse('from', 'A money model cannot apply to a month before this one');
}

const adminOnly = (actor: Actor) => {
  if (actor.role !== 'admin') throw new DomainError('forbidden', 'Only an admin can change how the agency is paid.');
};

type AgencyModelCommand = { type: 'ChooseAgencyMoneyModel'; choice: AgencyChoice; today: string; actor: Actor };

export const agencyModelDecider: Decider<AgencyModelCommand, MoneyModelEvent, AgencyModelState> = {
  initialState: () => ({ choices: [] }),
  evolve: (state, event) =>
    event.type === 'AgencyMoneyModelChosen' ? { choices: [...state.choices, { ...event.data }] } : state,
  decide: ({ choice, today, actor }, state) => {
    adminOnly(actor);
    checkFrom(choice.from, today);
    if (!(VAT_RATES_BP as readonly number[]).includes(choice.vatRateBp)) {
      refuse('vatRate', 'VAT is exempt (0 %) or the standard rate (20 %)');
    }
    const current = inForce(state.choices, choice.from);
    const same =
      current?.from === choice.from &&
      current.model === choice.model &&
      current.vatRateBp === choice.vatRateBp &&
      current.payAfterFamilyPays === choice.payAfterFamilyPays;
    if (same) return [];
    const { model, from, vatRateBp, payAfterFamilyPays } = choice;
    return [{ type: 'AgencyMoneyModelChosen', data: { model, from, vatRateBp, payAfterFamilyPays } }];
  },
};

type EngagementModelCommand = {
  type: 'ChooseEngagementMoneyModel';
  engagementId: string;
  choice: EngagementChoice;
  today: string;
  actor: Actor;
};

export const engagementModelDecider: Decider<EngagementModelCommand, MoneyModelEvent, EngagementModelState> = {
  initialState: () => ({ choices: [] }),
  evolve: (state, event) =>
    event.type === 'EngagementMoneyModelChosen'
      ? { choices: [...state.choices, { model: event.data.model, from: event.data.from }] }
      : state,
  decide: ({ engagementId, choice, today, actor }, state) => {
    adminOnly(actor);
    checkId(engagementId, 'engagementId', 'The engagement id');
    checkFrom(choice.from, today);
    const current = inForce(state.choices, choice.from);
    if (current?.from === choice.from && current.model === choice.model) return [];
    if (!current && choice.model === null) return [];
    return [{ type: 'EngagementMoneyModelChosen', data: { engagementId, model: choice.model, from: choice.from } }];
  },
};
