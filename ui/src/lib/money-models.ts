import type { AgencyMoneyModelAnswer, EngagementMoneyModelAnswer, MoneyModel } from '@agency/contracts';
import { getJson, postJson } from './http';

export type { AgencyMoneyModelAnswer, EngagementMoneyModelAnswer, MoneyModel };

/** What the screens call each model (types only from contracts: the screens that label lessons load early). */
const MONEY_MODEL_LABELS: Record<MoneyModel, string> = {
  'tutor-pays-commission': 'Tutor pays commission',
  'agency-sells-tuition': 'Agency sells the tuition',
  introduction: 'Introduction agency',
};

/** What the screens call each model. */
export const modelLabel = (model: MoneyModel) => MONEY_MODEL_LABELS[model];

/** The models as a select's options, the spec's first. */
export const MODEL_OPTIONS = (Object.keys(MONEY_MODEL_LABELS) as MoneyModel[]).map((value) => ({
  value,
  label: MONEY_MODEL_LABELS[value],
}));

/** What each model means for the month's documents, in a sentence. */
export const MODEL_MEANING: Record<MoneyModel, string> = {
  'tutor-pays-commission': 'The tutor bills the family; the agency invoices the tutor its commission.',
  'agency-sells-tuition':
    "The agency invoices the family for the lessons and pays the tutor their earnings less the agency's share: no commission invoice.",
  introduction:
    'The tutor bills the family; the agency invoices the family its fee (the commission): no commission invoice, no money between agency and tutor.',
};

/**
 * Beside a lesson, a month or an invoice: who bills the family under a model other than the
 * spec's (whose lessons are on the tutor's commission invoice).
 */
export const billedBy = (model: MoneyModel) =>
  model === 'agency-sells-tuition'
    ? 'billed by the agency'
    : model === 'introduction'
      ? 'an introduction, the agency bills the family its fee'
      : 'on the commission invoice';

/**
 * A tutor's month in the invoice status report, by the models its lessons are under: nothing
 * under the spec's model alone; otherwise what the agency issues instead of, or beside, the
 * commission invoice.
 */
export function monthNote(models: readonly MoneyModel[] | undefined): string | null {
  const others = (models ?? []).filter((model) => model !== 'tutor-pays-commission');
  if (others.length === 0) return null;
  const what = others.map((model) => billedBy(model)).join('; ');
  return others.length === models?.length
    ? `no commission invoice: ${what}`
    : `commission invoice for part of the month; others ${what}`;
}

/** The agency's model in force, the changes to come and every choice (admins; auditors read it). */
export const fetchAgencyMoneyModel = (signal?: AbortSignal) =>
  getJson<AgencyMoneyModelAnswer>('/api/agency/money-model', signal);

export const saveAgencyMoneyModel = (body: {
  commandId: string;
  model: MoneyModel;
  from: string;
  vatRate: string;
  payAfterFamilyPays: boolean;
}) => postJson<unknown>('/api/agency/money-model', body);

/** The model of one engagement's lessons today and the changes to come. */
export const fetchEngagementMoneyModel = (engagementId: string, signal?: AbortSignal) =>
  getJson<EngagementMoneyModelAnswer>(`/api/engagements/money-model/${encodeURIComponent(engagementId)}`, signal);

/** Its own model from a month on; `null`: the agency's again. */
export const saveEngagementMoneyModel = (
  engagementId: string,
  body: { commandId: string; model: MoneyModel | null; from: string },
) => postJson<unknown>(`/api/engagements/money-model/${encodeURIComponent(engagementId)}`, body);

/** '2026-03-01' → 'March 2026'. */
export const monthOf = (date: string) =>
  new Date(`${date.slice(0, 7)}-01T00:00:00Z`).toLocaleDateString('en-GB', {
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  });
