import type { AgencyDetailsAnswer } from '@agency/contracts';
import { getJson } from './http';
import { useLoader } from './use-loader';

export type AgencyDetails = AgencyDetailsAnswer;

/** The agency's own details (GET /api/agency): the settings screen edits them, the invoices notice shows them. */
export const fetchAgencyDetails = (signal?: AbortSignal) => getJson<AgencyDetails>('/api/agency', signal);

const loadAgency = (_: 'agency', signal: AbortSignal) => fetchAgencyDetails(signal);

/**
 * How long accounting keeps billing details after an erasure, in the server's words (its
 * RETENTION_YEARS): "6 years", or "the retention period" until the answer is in.
 */
export function useRetentionPeriod(): string {
  const years = useLoader(loadAgency, 'agency').state.data?.retentionYears;
  return years ? `${years} year${years === 1 ? '' : 's'}` : 'the retention period';
}
