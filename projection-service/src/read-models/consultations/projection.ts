import type { ConsultationDetails, ConsultationEvent } from '@agency/contracts';
import type pg from 'pg';
import { defineProjection } from '../projection';

function upsert(sql: pg.ClientBase, c: ConsultationDetails) {
  return sql.query(
    `insert into consultations (id, client_id, child_id, date, amount_pence, assessment, invoice_id)
     values ($1, $2, $3, $4, $5, $6, $7)
     on conflict (id) do update set client_id = excluded.client_id, child_id = excluded.child_id, date = excluded.date,
       amount_pence = excluded.amount_pence, assessment = excluded.assessment, invoice_id = excluded.invoice_id`,
    [
      c.consultationId,
      c.clientId,
      c.childId,
      c.date,
      c.amountPence,
      c.assessment && JSON.stringify(c.assessment),
      c.invoiceId,
    ],
  );
}

export const consultationsProjection = defineProjection<ConsultationEvent>({
  name: 'consultations',
  version: 1,
  migrations: ['021_consultations.sql', '055_consultation_client.sql'],
  handlers: {
    ConsultationRecorded: (sql, { data }) => upsert(sql, data),
    ConsultationChanged: (sql, { data }) => upsert(sql, data),
    ConsultationCancelled: (sql, { data }) =>
      sql.query('update consultations set cancelled = true where id = $1', [data.consultationId]),
  },
});
