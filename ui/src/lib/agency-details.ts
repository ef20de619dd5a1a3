import type { AgencyDetailsAnswer } from '@agency/contracts';
import { getJson } from './http';

export type AgencyDetails = AgencyDetailsAnswer;

/** The agency's own details (GET /api/agency): the settings screen edits them, the invoices notice shows them. */
export const fetchAgencyDetails = (signal?: AbortSignal) => getJson<AgencyDetails>('/api/agency', signal);
