import { type AgencyDetails, fetchAgencyDetails } from '../../lib/agency-details';
import { postJson } from '../../lib/http';

export type { AgencyDetails };
export { fetchAgencyDetails };

export const saveAgencyDetails = (
  body: Omit<AgencyDetails, 'paymentTermsDays' | 'defaultConsultationAmount'> & {
    paymentTermsDays: string;
    defaultConsultationAmount: string;
    commandId: string;
  },
) => postJson<{ agency: AgencyDetails }>('/api/agency', body).then((answer) => answer.agency);
