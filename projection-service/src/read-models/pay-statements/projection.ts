import type { PayEvent } from '@agency/contracts';
import { defineProjection } from '../projection';

/** Tutors' pay statements as issued, confirmed and paid (docs/money-models.md, "Pay statements"). */
export const payStatementsProjection = defineProjection<PayEvent>({
  name: 'pay-statements',
  version: 1,
  migrations: ['096_pay_statements.sql'],
  handlers: {
    PayStatementIssued: (sql, { data }) =>
      sql.query(
        `insert into pay_statements (id, tutor_id, month, reference, date, total_pay_pence, held_pence, carried_pence, lines)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9) on conflict (id) do nothing`,
        [
          data.statementId,
          data.tutorId,
          data.month,
          data.reference,
          data.date,
          data.totalPayPence,
          data.lines.reduce((sum, line) => sum + (line.kind === 'held' ? line.payPence : 0), 0),
          data.carriedPence,
          JSON.stringify(data.lines),
        ],
      ),
    PayStatementConfirmed: (sql, { data }) =>
      sql.query('update pay_statements set confirmed = true where id = $1', [data.statementId]),
    TutorPaymentRecorded: (sql, { data }) =>
      sql.query('update pay_statements set paid_pence = paid_pence + $2 where id = $1', [
        data.statementId,
        data.amountPence,
      ]),
  },
});
