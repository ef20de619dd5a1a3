import { Readable } from 'node:stream';
import {
  type AgedDebtAmounts,
  type AgedDebtAnswer,
  agedDebtAnswer,
  agedDebtQuery,
  csvRow,
  ERASED,
  nonJsonAnswer,
  readsEveryTutor,
} from '@agency/contracts';
import { todayIn, toPounds } from '@agency/domain';
import { forbidden } from '@agency/platform';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type pg from 'pg';
import { requireSignIn } from '../../signed-in';
import type { AgencyToday } from '../clients/queries';
import { withMoney } from '../money-columns';

/**
 * What each family owes today on invoices not paid and not credited, by days past the due date:
 * not yet due (current), 1–30, 31–60, 61–90, over 90 (domain `reminder.agedBucket` says the same
 * rule in words). A family is named by its first contact now, or by the name billed (a workshop
 * booking of no family; "Erased" once erased). Its latest reminder is the latest on any invoice it
 * still owes on.
 */
const AGED_DEBT = `
  with owing as (
    select f.id, f.client_id, f.date, f.total_pence - f.paid_pence as owed_pence, $1::date - f.due_date as late,
           coalesce(case when k.first_name = $2 then $2 else k.first_name || ' ' || k.last_name end,
                    f.billing ->> 'name', '') as family
      from family_invoices f
      left join contacts k on k.client_id = f.client_id and k.seq = 0
     where f.credit_note_id is null and f.paid_pence < f.total_pence
  ),
  last_reminders as (
    select distinct on (o.client_id) o.client_id, r.step, to_char(r.date, 'YYYY-MM-DD') as date
      from owing o join family_invoice_reminders r on r.invoice_id = o.id
     order by o.client_id, r.date desc, r.step desc, r.invoice_id
  )
  select o.client_id, (array_agg(o.family order by o.date desc, o.id desc))[1] as family, count(*)::int as invoices,
         coalesce(sum(o.owed_pence) filter (where o.late <= 0), 0) as current_pence,
         coalesce(sum(o.owed_pence) filter (where o.late between 1 and 30), 0) as days1to30_pence,
         coalesce(sum(o.owed_pence) filter (where o.late between 31 and 60), 0) as days31to60_pence,
         coalesce(sum(o.owed_pence) filter (where o.late between 61 and 90), 0) as days61to90_pence,
         coalesce(sum(o.owed_pence) filter (where o.late > 90), 0) as over90_pence,
         sum(o.owed_pence) as total_pence, l.step as reminder_step, l.date as reminder_date
    from owing o left join last_reminders l on l.client_id = o.client_id
   group by o.client_id, l.step, l.date
   order by total_pence desc, family, o.client_id`;

const COLUMNS = ['current', 'days1to30', 'days31to60', 'days61to90', 'over90', 'total'] as const;

export async function agedDebt(db: pg.Pool, today: string): Promise<AgedDebtAnswer> {
  const { rows } = await db.query(AGED_DEBT, [today, ERASED]);
  const sums = Object.fromEntries(COLUMNS.map((column) => [column, 0])) as Record<(typeof COLUMNS)[number], number>;
  const answer = rows.map((raw) => {
    const row = withMoney(raw);
    const amounts = Object.fromEntries(
      COLUMNS.map((column) => {
        const pence = row[`${column}_pence`] as number;
        sums[column] += pence;
        return [column, toPounds(pence)];
      }),
    ) as AgedDebtAmounts;
    return {
      clientId: row.client_id as string,
      family: row.family as string,
      invoices: row.invoices as number,
      ...amounts,
      lastReminder: row.reminder_step === null ? null : { step: row.reminder_step as number, date: row.reminder_date },
    };
  });
  const totals = Object.fromEntries(COLUMNS.map((column) => [column, toPounds(sums[column])])) as AgedDebtAmounts;
  return { asOf: today, rows: answer, totals };
}

const HEAD = ['Family', 'Client id', 'Invoices', 'Current', '1-30 days', '31-60 days', '61-90 days', 'Over 90 days'];
const pounds = (amount: number) => amount.toFixed(2);

/** The report as CSV (docs/csv.md): one row per family, then the totals. */
export function agedDebtCsv(report: AgedDebtAnswer): string {
  const amounts = (a: AgedDebtAmounts) => COLUMNS.map((column) => pounds(a[column]));
  return [
    csvRow([...HEAD, 'Total', 'Last reminder', `As of ${report.asOf}`]),
    ...report.rows.map((row) =>
      csvRow([
        row.family,
        row.clientId,
        row.invoices,
        ...amounts(row),
        row.lastReminder ? `${row.lastReminder.step} on ${row.lastReminder.date}` : '',
        '',
      ]),
    ),
    csvRow(['Total', '', report.rows.reduce((sum, row) => sum + row.invoices, 0), ...amounts(report.totals), '', '']),
  ].join('');
}

/** The CSV as a download (a stream has no place in the route's JSON answer type). */
const sendCsv = (reply: FastifyReply, report: AgedDebtAnswer) =>
  reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="aged-debt-${report.asOf}.csv"`)
    .header('cache-control', 'private, no-store')
    .send(Readable.from([agedDebtCsv(report)]));

/**
 * `GET /api/reports/aged-debt[?format=csv]`: what each family owes by age today (admins, partners
 * and auditors: the office, as for family invoices).
 */
export async function agedDebtQueries(fastify: FastifyInstance, { db, today }: { db: pg.Pool; today: AgencyToday }) {
  requireSignIn(fastify);
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const schema = {
    querystring: agedDebtQuery,
    response: {
      200: {
        description: 'What each family owes by age; with format=csv, the same as CSV',
        content: {
          ...nonJsonAnswer('text/csv', 'One row per family, then the totals').content,
          'application/json': { schema: agedDebtAnswer },
        },
      },
    },
  };
  app.get('/api/reports/aged-debt', { schema }, async (request, reply) => {
    if (!readsEveryTutor(request.signedIn.role)) throw forbidden('The aged-debt report is for the office.');
    const report = await agedDebt(db, todayIn(today.timeZone, today.clock()));
    if (request.query.format !== 'csv') return report;
    return sendCsv(reply, report);
  });
}
