import {
  type InvoiceAnswer,
  type InvoiceItem,
  invoiceAnswer,
  invoiceDocumentParams,
  invoiceListAnswer,
  invoiceListQuery,
  invoiceParams,
  invoicePreviewAnswer,
  invoicePreviewQuery,
  invoiceStatusAnswer,
  invoiceStatusQuery,
  invoiceSummaryAnswer,
  invoiceSummaryQuery,
  type MoneyModel,
  pdfAnswer,
  redactForRole,
  type SessionUser,
  type TutorInvoiceView,
} from '@agency/contracts';
import { basisPointsToFraction, invoice, timesheet, toPounds } from '@agency/domain';
import { type EventStore, forbidden, notFound } from '@agency/platform';
import {
  contentHashOfDocument,
  issuedDocumentIn,
  renderIssuedDocument,
} from '@agency/platform/documents/issued-documents';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type pg from 'pg';
import type { z } from 'zod';
import { answeringAsOf } from '../../audit/as-of';
import { requireSignIn } from '../../signed-in';
import { withMoney } from '../money-columns';
import { invoiceStatusGroups, type MonthAmounts, type TutorMonth } from './invoice-status';

const monthKey = (y: number, m: number) => `${y}-${String(m).padStart(2, '0')}`;

/** Whose invoices a user reads: a tutor only their own; admins and partners anyone's (or everyone's). */
function whoseInvoices(user: SessionUser, asked: string | undefined): string | undefined {
  if (user.role !== 'tutor') return asked;
  if (asked && asked !== user.tutorId) throw forbidden('A tutor can see only their own invoices.');
  return user.tutorId ?? '-';
}

const amountsOf = (row: {
  earnings_pence: number;
  commission_pence: number;
  partner_commission_pence: number;
}): MonthAmounts => ({
  earningsPence: row.earnings_pence,
  commissionPence: row.commission_pence,
  partnerCommissionPence: row.partner_commission_pence,
});

const inPounds = (amounts: MonthAmounts) => ({
  earnings: toPounds(amounts.earningsPence),
  commission: toPounds(amounts.commissionPence),
  partnerCommission: toPounds(amounts.partnerCommissionPence),
});

const INVOICE_COLUMNS = `i.id, i.tutor_id, i.month, i.reference, to_char(i.date, 'YYYY-MM-DD') as date, i.lesson_count,
  i.earnings_pence, i.commission_pence, i.partner_commission_pence, i.items, i.confirmed, i.paid_pence, i.void,
  t.first_name, t.last_name, t.address, t.postcode, t.email`;

/** The items as the confirmation page shows them: 'Earnings of £X at N% commission'. */
const itemViews = (items: InvoiceItem[]) =>
  items.map((item) => ({
    earnings: toPounds(item.earningsPence),
    commissionRate: basisPointsToFraction(item.commissionBp),
    commission: toPounds(item.commissionPence),
    description: invoice.itemDescription(item),
  }));

/** A row of INVOICE_COLUMNS, its money in pence (`withMoney`). */
type InvoiceRow = {
  id: string;
  tutor_id: string;
  month: string;
  reference: string;
  date: string;
  items: InvoiceItem[];
  earnings_pence: number;
  commission_pence: number;
  partner_commission_pence: number;
  paid_pence: number;
  confirmed: boolean;
  first_name: string;
  last_name: string;
};

/** One invoice as every answer shows it (before the role's redaction), from its row with its tutor's name. */
const tutorInvoiceOf = (row: InvoiceRow): TutorInvoiceView => ({
  id: row.id,
  tutorId: row.tutor_id,
  tutorName: `${row.first_name} ${row.last_name}`,
  month: row.month,
  period: timesheet.monthName(row.month),
  reference: row.reference,
  date: row.date,
  items: itemViews(row.items),
  earnings: toPounds(row.earnings_pence),
  commission: toPounds(row.commission_pence),
  partnerCommission: toPounds(row.partner_commission_pence),
  totalCommission: toPounds(row.commission_pence),
  paid: toPounds(row.paid_pence),
  confirmed: row.confirmed,
  locked: row.confirmed,
});

/**
 * Invoices: the month list with totals, one invoice's summary for the confirmation page, the
 * PDF document, and the invoice status report. Amounts leave in pounds.
 */
/** One invoice that is not void, for `user`: another tutor's is not found (never forbidden: its existence is not told). */
async function oneInvoice(db: pg.Pool, user: SessionUser, id: string) {
  const found = await db.query(
    `select ${INVOICE_COLUMNS} from invoices i join tutors t on t.id = i.tutor_id where i.id = $1 and not i.void`,
    [id],
  );
  const row = found.rows[0] && withMoney(found.rows[0]);
  if (!row || (user.role === 'tutor' && row.tutor_id !== user.tutorId)) throw notFound('There is no such invoice.');
  return row;
}

/**
 * Which money models each tutor's lessons of each month are under (months `like` the first
 * parameter, the one month of the second, the tutor of the third, when given), keyed
 * `{tutorId} {month}`: only the months with a lesson under another model than the spec's, so the
 * spec's answers are unchanged (docs/money-models.md).
 */
async function modelsOfMonths(db: pg.Pool, [months, month, tutorId]: [string, string | null, string | null]) {
  if (answeringAsOf()) return new Map<string, MoneyModel[]>();
  const found = await db.query<{ tutor_id: string; month: string; models: MoneyModel[] }>(
    // A choice applies to whole months, so an engagement's lessons of a month share its model on
    // the month's first day: one look-up per engagement and month, not one per lesson.
    `select tutor_id, month, array_agg(distinct money_model_on(engagement_id, (month || '-01')::date)) as models
       from (select distinct tutor_id, month, engagement_id from lessons
              where month like $1 and ($2::text is null or month = $2) and ($3::text is null or tutor_id = $3)) taught
      group by tutor_id, month`,
    [months, month, tutorId],
  );
  return new Map(
    found.rows
      .filter((row) => row.models.some((model) => model !== 'tutor-pays-commission'))
      .map((row) => [`${row.tutor_id} ${row.month}`, [...row.models].sort()]),
  );
}

/** One tutor invoice as its confirmation page shows it; the invoice commands answer with it too. */
export const invoiceView =
  (db: pg.Pool) =>
  async (user: SessionUser, id: string): Promise<InvoiceAnswer> =>
    redactForRole(user.role, { invoice: tutorInvoiceOf(await oneInvoice(db, user, id)) });

export async function invoiceQueries(fastify: FastifyInstance, { db, store }: { db: pg.Pool; store: EventStore }) {
  requireSignIn(fastify);
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const invoiceFor = (user: SessionUser, id: string) => oneInvoice(db, user, id);

  const listSchema = { querystring: invoiceListQuery, response: { 200: invoiceListAnswer } };
  const list = async (request: { signedIn: SessionUser; query: z.output<typeof invoiceListQuery> }) => {
    const user = request.signedIn;
    const { query } = request;
    const tutor = whoseInvoices(user, query.tutorId);
    const result = await db.query(
      `select ${INVOICE_COLUMNS}
         from invoices i join tutors t on t.id = i.tutor_id
        where i.month like $1 and ($2::text is null or i.month = $2) and ($3::text is null or i.tutor_id = $3)
        order by i.month, t.last_name, t.first_name, i.id`,
      [`${query.year}-%`, query.month ? monthKey(query.year, query.month) : null, tutor ?? null],
    );
    const rows = result.rows.map(withMoney);
    const models = await modelsOfMonths(db, [
      `${query.year}-%`,
      query.month ? monthKey(query.year, query.month) : null,
      tutor ?? null,
    ]);
    const invoices = rows.map((row) => {
      const amounts = inPounds(amountsOf(row));
      const monthModels = models.get(`${row.tutor_id} ${row.month}`);
      return {
        ...(monthModels ? { models: monthModels } : {}),
        id: row.id,
        tutorId: row.tutor_id,
        month: row.month,
        period: timesheet.monthName(row.month),
        date: row.date,
        tutorName: `${row.first_name} ${row.last_name}`,
        earnings: amounts.earnings,
        commission: amounts.commission,
        partnerCommission: amounts.partnerCommission,
        reference: row.reference,
        paid: toPounds(row.paid_pence),
        confirmed: row.confirmed,
        locked: row.confirmed,
        void: row.void,
      };
    });
    const totals = inPounds(
      rows
        .filter((row) => !row.void)
        .reduce(
          (sum: MonthAmounts, row) => ({
            earningsPence: sum.earningsPence + row.earnings_pence,
            commissionPence: sum.commissionPence + row.commission_pence,
            partnerCommissionPence: sum.partnerCommissionPence + row.partner_commission_pence,
          }),
          { earningsPence: 0, commissionPence: 0, partnerCommissionPence: 0 },
        ),
    );
    // Partner shares are the agency's business: the one visibility rule leaves them out of a tutor's answer.
    return redactForRole(user.role, { invoices, totals });
  };
  // The spec calls GET /api/invoices/?year&tutorId&month, with the slash.
  app.get('/api/invoices', { schema: listSchema }, list);
  app.get('/api/invoices/', { schema: listSchema }, list);

  const summary = { querystring: invoiceSummaryQuery, response: { 200: invoiceSummaryAnswer } };
  app.get('/api/invoices/summary', { schema: summary }, async (request) => {
    const user = request.signedIn;
    const { query } = request;
    const tutor = whoseInvoices(user, query.tutorId) ?? query.tutorId;
    const key = monthKey(query.year, query.month);
    const found = await db.query(
      `select ${INVOICE_COLUMNS} from invoices i join tutors t on t.id = i.tutor_id
        where i.tutor_id = $1 and i.month = $2 and not i.void`,
      [tutor, key],
    );
    const row = found.rows[0] && withMoney(found.rows[0]);
    if (!row) throw notFound(`No invoice has been generated for ${timesheet.monthName(key)}.`);
    return redactForRole(user.role, tutorInvoiceOf(row));
  });

  // The invoice commands' answer (save, confirm, payment) is this view, asked once they show here.
  const one = { params: invoiceParams, response: { 200: invoiceAnswer } };
  const oneView = invoiceView(db);
  app.get('/api/invoices/:id', { schema: one }, async (request) => oneView(request.signedIn, request.params.id));

  const preview = { querystring: invoicePreviewQuery, response: { 200: invoicePreviewAnswer } };
  app.get('/api/invoices/preview', { schema: preview }, async (request) => {
    const { query } = request;
    const tutorId = whoseInvoices(request.signedIn, query.tutorId) ?? query.tutorId;
    const key = monthKey(query.year, query.month);
    const tutor = await db.query('select first_name, last_name from tutors where id = $1', [tutorId]);
    if (!tutor.rows[0]) throw notFound('There is no such tutor.');
    const invoices = await db.query(
      `select id, reference, to_char(date, 'YYYY-MM-DD') as date, confirmed, void, items, lesson_count,
              earnings_pence, commission_pence, partner_commission_pence
         from invoices where tutor_id = $1 and month = $2 order by void desc, reference`,
      [tutorId, key],
    );
    const rows = invoices.rows.map(withMoney);
    const current = rows.find((row) => !row.void);
    // Before generation, exactly what GenerateInvoice would make of the month's lessons now.
    // Only the lessons under the spec's model are on it; the others are named beside it.
    const lessons = await db.query(
      `select amount_pence, commission_bp, commission_pence, partner_commission_pence,
              money_model_on(engagement_id, date) as money_model
         from lessons where tutor_id = $1 and month = $2`,
      [tutorId, key],
    );
    const billedElsewhere = new Map<MoneyModel, { lessonCount: number; earningsPence: number }>();
    for (const row of lessons.rows.map(withMoney)) {
      if (row.money_model === 'tutor-pays-commission') continue;
      const part = billedElsewhere.get(row.money_model) ?? { lessonCount: 0, earningsPence: 0 };
      billedElsewhere.set(row.money_model, {
        lessonCount: part.lessonCount + 1,
        earningsPence: part.earningsPence + row.amount_pence,
      });
    }
    const summary = current
      ? {
          items: current.items as InvoiceItem[],
          lessonCount: current.lesson_count,
          earningsPence: current.earnings_pence,
          commissionPence: current.commission_pence,
        }
      : invoice.invoiceSummary(
          lessons.rows
            .map(withMoney)
            .filter((row) => row.money_model === 'tutor-pays-commission')
            .map((row) => ({
              amountPence: row.amount_pence,
              commissionBp: row.commission_bp,
              commissionPence: row.commission_pence,
              partnerCommissionPence: row.partner_commission_pence,
            })),
        );
    return {
      tutorId,
      tutorName: `${tutor.rows[0].first_name} ${tutor.rows[0].last_name}`,
      period: timesheet.monthName(key),
      lessonCount: summary.lessonCount,
      items: itemViews(summary.items),
      earnings: toPounds(summary.earningsPence),
      totalCommission: toPounds(summary.commissionPence),
      invoice: current
        ? { id: current.id, reference: current.reference, date: current.date, confirmed: current.confirmed }
        : null,
      voided: rows.filter((row) => row.void).map((row) => row.reference),
      ...(billedElsewhere.size > 0
        ? {
            notOnInvoice: [...billedElsewhere]
              .sort(([a], [b]) => a.localeCompare(b))
              .map(([model, part]) => ({
                model,
                lessonCount: part.lessonCount,
                earnings: toPounds(part.earningsPence),
              })),
          }
        : {}),
    };
  });

  // Opened in a new tab: the cookie alone authenticates it.
  const document = {
    params: invoiceDocumentParams,
    response: { 200: pdfAnswer("The invoice's PDF document (a withdrawn one is not found)") },
  };
  app.get('/api/invoices/doc/:id', { schema: document }, async (request, reply) => {
    const user = request.signedIn;
    const row = await invoiceFor(user, request.params.id);
    // As generated: from its own event, the tutor's details and the agency's as they were then.
    const issued = await issuedDocumentIn(
      store,
      invoice.invoiceStream(row.tutor_id, row.month),
      (event) => event.type === 'InvoiceGenerated' && (event.data as { reference: string }).reference === row.reference,
    );
    if (!issued) throw notFound('There is no such invoice.');
    const pdf = await renderIssuedDocument(issued);
    const filename = `${row.reference.replace(/[^A-Za-z0-9_-]/g, '')}.pdf`;
    return reply
      .type('application/pdf')
      .header('content-disposition', `inline; filename="${filename}"`)
      .header('x-content-hash', contentHashOfDocument(issued))
      .header('cache-control', 'private, no-store')
      .send(pdf);
  });

  const report = { querystring: invoiceStatusQuery, response: { 200: invoiceStatusAnswer } };
  app.get('/api/reports/invoiceStatus', { schema: report }, async (request) => {
    const user = request.signedIn;
    if (user.role === 'tutor') throw forbidden('The invoice status report is for admins and partners.');
    const { query } = request;
    const key = monthKey(query.year, query.month);
    const first = `${key}-01`;
    // Tutors working in the month (by their current spell), and anyone with lessons or an invoice in it.
    const result = await db.query(
      `with lesson_totals as (
         select tutor_id, count(*)::int as lesson_count, sum(amount_pence)::bigint as earnings_pence,
                sum(commission_pence)::bigint as commission_pence,
                sum(partner_commission_pence)::bigint as partner_commission_pence
           from lessons where month = $1 group by tutor_id
       )
       select t.id, t.first_name, t.last_name,
              coalesce(l.lesson_count, 0) as lesson_count, coalesce(l.earnings_pence, 0) as earnings_pence,
              coalesce(l.commission_pence, 0) as commission_pence,
              coalesce(l.partner_commission_pence, 0) as partner_commission_pence,
              i.id as invoice_id, i.earnings_pence as invoice_earnings_pence,
              i.commission_pence as invoice_commission_pence,
              i.partner_commission_pence as invoice_partner_commission_pence, i.paid_pence
         from tutors t
         left join lesson_totals l on l.tutor_id = t.id
         left join invoices i on i.tutor_id = t.id and i.month = $1 and not i.void
        where (t.start_date < $2::date + interval '1 month' and (t.end_date is null or t.end_date >= $2::date))
           or l.tutor_id is not null or i.id is not null
        order by t.last_name, t.first_name, t.id`,
      [key, first],
    );
    const months: TutorMonth[] = result.rows.map(withMoney).map((row) => ({
      tutorId: row.id,
      name: `${row.first_name} ${row.last_name}`,
      lessonCount: row.lesson_count,
      lessons: amountsOf(row),
      invoice: row.invoice_id
        ? {
            earningsPence: row.invoice_earnings_pence,
            commissionPence: row.invoice_commission_pence,
            partnerCommissionPence: row.invoice_partner_commission_pence,
            paidPence: row.paid_pence,
          }
        : null,
    }));
    const models = await modelsOfMonths(db, [key, key, null]);
    return {
      year: query.year,
      month: query.month,
      period: timesheet.monthName(key),
      groups: invoiceStatusGroups(months).map((group) => ({
        group: group.group,
        heading: group.heading,
        full: group.full,
        tutors: group.tutors.map((tutor) => ({
          tutorId: tutor.tutorId,
          name: tutor.name,
          ...inPounds(tutor),
          ...(models.has(`${tutor.tutorId} ${key}`) ? { models: models.get(`${tutor.tutorId} ${key}`) } : {}),
        })),
        totals: inPounds(group.totals),
      })),
    };
  });
}
