import type { PayRunEvent } from '@agency/contracts';
import { payRun } from '@agency/domain';
import { defineProjection } from '../projection';

export const payRunsProjection = defineProjection<PayRunEvent>({
  name: 'pay-runs',
  version: 2,
  migrations: ['094_pay_runs.sql'],
  handlers: {
    PayRunPrepared: (sql, { data }) => {
      const payable = payRun.payableLines(data);
      return sql.query(
        `insert into pay_runs (id, month, prepared_on, total_pence, tutors, blocked, lines, waiting)
         values ($1, $2, $3, $4, $5, $6, $7, $8)
         on conflict (id) do update set prepared_on = excluded.prepared_on, total_pence = excluded.total_pence,
           tutors = excluded.tutors, blocked = excluded.blocked, lines = excluded.lines, waiting = excluded.waiting`,
        [
          data.payRunId,
          data.month,
          data.date,
          payRun.payableTotal(data),
          payable.length,
          data.lines.length - payable.length,
          JSON.stringify(data.lines),
          JSON.stringify(data.waiting),
        ],
      );
    },
    PayRunPaid: (sql, { data }) =>
      sql.query('update pay_runs set paid_on = $2, payments = $3 where id = $1', [
        data.payRunId,
        data.date,
        JSON.stringify(data.payments),
      ]),
  },
});
