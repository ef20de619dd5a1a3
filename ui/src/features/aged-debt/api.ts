import type { AgedDebtAnswer, AgedDebtRow } from '@agency/contracts';
import { getJson } from '../../lib/http';

export type { AgedDebtAnswer, AgedDebtRow };

/** What each family owes today, by days past the due date (admins, partners, auditors). */
export const fetchAgedDebt = (signal?: AbortSignal) => getJson<AgedDebtAnswer>('/api/reports/aged-debt', signal);

export const agedDebtCsvUrl = '/api/reports/aged-debt?format=csv';
