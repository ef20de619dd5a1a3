import type { AgencyEvent } from '@agency/contracts';
import { defineProjection } from '../projection';

export const agencyProjection = defineProjection<AgencyEvent>({
  name: 'agency',
  version: 1,
  migrations: ['020_agency.sql'],
  handlers: {
    AgencyDetailsSet: (sql, { data }) =>
      sql.query(
        `insert into agency_details (id, details) values (1, $1)
         on conflict (id) do update set details = excluded.details`,
        [JSON.stringify(data.details)],
      ),
  },
});
