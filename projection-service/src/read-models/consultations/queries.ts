import { consultationListAnswer, consultationListQuery, readsAsAdmin } from '@agency/contracts';
import { toPounds } from '@agency/domain';
import { forbidden } from '@agency/platform';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type pg from 'pg';
import { requireSignIn } from '../../signed-in';
import { invoiceOwedSql } from '../family-invoices/invoice-state';
import { withMoney } from '../money-columns';
import { nameMatches, nameSearchOf, nameSearchParams } from '../name-search';

/** The consultations list's orders: the columns compared in turn, the id last so the order is total. */
const CONSULTATION_ORDERS = {
  date: ['c.date', 'c.id'],
  name: ['name', 'c.date', 'c.id'],
  child: ['child', 'c.date', 'c.id'],
  amount: ['c.amount_pence', 'c.date', 'c.id'],
} as const;

/**
 * `GET /api/consultations?year&month`: admins (and auditors) only, newest first. The family's first contact and
 * the child are named from the clients read model (a consultation's events hold ids only); the
 * invoice columns come from the family invoice that bills it now, with that invoice's own credit
 * note only (a change credits the invoice it replaces, never the new one: those replaced are
 * listed apart, each with its own). The invoicing workflow (a reactor) runs after the command:
 * until it has issued the invoice, or credited every invoice that no longer bills it, the row says
 * it is under way.
 */
export async function consultationQueries(fastify: FastifyInstance, { db }: { db: pg.Pool }) {
  requireSignIn(fastify);
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const schema = { querystring: consultationListQuery, response: { 200: consultationListAnswer } };
  app.get('/api/consultations', { schema }, async (request) => {
    if (!readsAsAdmin(request.signedIn.role)) throw forbidden('Consultations are for admins.');
    const { year, month } = request.query;
    const descending = request.query.order === 'desc' ? ' desc' : '';
    // Newest first unless another order is asked for.
    const order = request.query.sort
      ? CONSULTATION_ORDERS[request.query.sort].map((column) => `${column}${descending}`).join(', ')
      : 'c.date desc, c.id';
    const result = await db.query(
      `select c.id, to_char(c.date, 'YYYY-MM-DD') as date, c.client_id, c.child_id, c.amount_pence, c.assessment,
              c.cancelled, c.invoice_id, coalesce(k.first_name || ' ' || k.last_name, '') as name,
              coalesce(ch.first_name || ' ' || ch.last_name, '') as child, i.reference, coalesce(i.paid_pence, 0) as paid_pence,
              ${invoiceOwedSql('i')} as owed_pence,
              i.credit_note_id, i.credit_note_reference,
              coalesce((
                select json_agg(json_build_object('invoiceId', r.id, 'reference', r.reference,
                                                  'creditNoteId', r.credit_note_id,
                                                  'creditNoteReference', r.credit_note_reference)
                                order by r.date, r.reference)
                  from family_invoices r
                 where r.billed_kind = 'consultation' and r.billed_id = c.id and r.id <> c.invoice_id
              ), '[]') as replaced,
              case
                when not c.cancelled and i.id is null then 'issuing invoice'
                when exists (
                  select 1 from family_invoices s
                   where s.billed_kind = 'consultation' and s.billed_id = c.id and s.credit_note_id is null
                     and (c.cancelled or s.id <> c.invoice_id)
                ) then 'issuing credit note'
              end as under_way
         from consultations c
         left join contacts k on k.client_id = c.client_id and k.seq = 0
         left join children ch on ch.id = c.child_id
         left join family_invoices i on i.id = c.invoice_id
        where ($1::int is null or extract(year from c.date) = $1) and ($2::int is null or extract(month from c.date) = $2)
          and ($3::text is null
               or c.client_id in (select f.client_id from contacts f where ${nameMatches('f.first_name', 'f.last_name', '$3', '$4')})
               or c.child_id in (select s.id from children s where ${nameMatches('s.first_name', 's.last_name', '$3', '$4')}))
        order by ${order}`,
      [year ?? null, month ?? null, ...nameSearchParams(nameSearchOf(request.query.q))],
    );
    return {
      consultations: result.rows.map(withMoney).map((row) => ({
        id: row.id,
        date: row.date,
        clientId: row.client_id,
        childId: row.child_id,
        name: row.name,
        child: row.child,
        amount: toPounds(row.amount_pence),
        assessment: row.assessment !== null,
        assessmentDetails: row.assessment,
        invoiceId: row.invoice_id,
        invoiceReference: row.reference ?? null,
        paid: toPounds(row.paid_pence),
        owed: toPounds(row.owed_pence ?? 0),
        cancelled: row.cancelled,
        creditNoteId: row.credit_note_id ?? null,
        creditNoteReference: row.credit_note_reference ?? null,
        replaced: row.replaced,
        underWay: row.under_way ?? null,
      })),
    };
  });
}
