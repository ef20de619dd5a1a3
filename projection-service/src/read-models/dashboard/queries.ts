import { dashboardAnswer, readsAsAdmin, redactForRole } from '@agency/contracts';
import { timesheet, todayIn, toPounds } from '@agency/domain';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type pg from 'pg';
import { requireSignIn } from '../../signed-in';
import { withMoney } from '../money-columns';

type Today = { timeZone: string; clock: () => Date };

const monthBefore = (month: string) => {
  const [year, number] = month.split('-').map(Number) as [number, number];
  return number === 1 ? `${year - 1}-12` : `${year}-${String(number - 1).padStart(2, '0')}`;
};

const calendarOf = (month: string) => ({
  year: Number(month.slice(0, 4)),
  month: Number(month.slice(5, 7)),
  period: timesheet.monthName(month),
});

/**
 * GET /api/dashboard: a view over the lessons, invoices, tutors, engagements and family
 * invoices read models (no table of its own). A tutor's answer holds only their own data.
 */
export async function dashboardQueries(fastify: FastifyInstance, { db, today }: { db: pg.Pool; today: Today }) {
  requireSignIn(fastify);
  const app = fastify.withTypeProvider<ZodTypeProvider>();

  app.get('/api/dashboard', { schema: { response: { 200: dashboardAnswer } } }, async (request) => {
    const user = request.signedIn;
    const tutorOnly = user.role === 'tutor' ? (user.tutorId ?? '-') : null;
    const date = todayIn(today.timeZone, today.clock());
    const thisMonth = date.slice(0, 7);

    const monthFigures = async (month: string) => {
      const found = await db.query(
        `select count(*)::int as lesson_count, coalesce(sum(amount_pence), 0)::bigint as earnings_pence,
                coalesce(sum(commission_pence), 0)::bigint as commission_pence,
                coalesce(sum(partner_commission_pence), 0)::bigint as partner_commission_pence
           from lessons where month = $1 and ($2::text is null or tutor_id = $2)`,
        [month, tutorOnly],
      );
      const row = withMoney(found.rows[0]);
      // Who bills whom for the month's lessons: the money model each is under on its date.
      const byModel = await db.query(
        // A choice applies to whole months: one look-up per engagement taught, not one per lesson.
        `select money_model_on(engagement_id, ($1 || '-01')::date) as model, sum(lesson_count)::int as lesson_count,
                sum(commission_pence)::bigint as commission_pence
           from (select engagement_id, count(*) as lesson_count, sum(commission_pence) as commission_pence
                   from lessons where month = $1 and ($2::text is null or tutor_id = $2)
                  group by engagement_id) taught
          group by 1 order by 1`,
        [month, tutorOnly],
      );
      return {
        ...calendarOf(month),
        // Only when a lesson is under another model than the spec's: its answer is unchanged.
        ...(byModel.rows.some((found) => found.model !== 'tutor-pays-commission')
          ? {
              byModel: byModel.rows.map(withMoney).map((found) => ({
                model: found.model,
                lessonCount: found.lesson_count,
                commission: toPounds(found.commission_pence),
              })),
            }
          : {}),
        lessonCount: row.lesson_count,
        earnings: toPounds(row.earnings_pence),
        commission: toPounds(row.commission_pence),
        partnerCommission: toPounds(row.partner_commission_pence),
      };
    };

    const invoices = async (condition: string) => {
      const found = await db.query(
        `select i.id, i.tutor_id, i.month, i.reference, i.commission_pence, i.paid_pence, t.first_name, t.last_name
           from invoices i join tutors t on t.id = i.tutor_id
          where not i.void and ${condition} and ($1::text is null or i.tutor_id = $1)
          order by i.month desc, t.last_name, t.first_name
          limit 50`,
        [tutorOnly],
      );
      return found.rows.map(withMoney).map((row) => ({
        id: row.id,
        tutorId: row.tutor_id,
        tutorName: `${row.first_name} ${row.last_name}`,
        ...calendarOf(row.month),
        reference: row.reference,
        commission: toPounds(row.commission_pence),
        paid: toPounds(row.paid_pence),
      }));
    };

    const staffOnly = async <T>(read: () => Promise<T[]>): Promise<T[]> => (tutorOnly ? [] : read());

    const tutorsWithoutLessons = await staffOnly(async () => {
      const found = await db.query(
        `select t.id, t.first_name, t.last_name from tutors t
          where t.active and t.start_date <= $2::date
            and not exists (select 1 from lessons l where l.tutor_id = t.id and l.month = $1)
          order by t.last_name, t.first_name`,
        [thisMonth, date],
      );
      return found.rows.map((row) => ({ tutorId: row.id, name: `${row.first_name} ${row.last_name}` }));
    });

    const unpaidFamilyInvoices = readsAsAdmin(user.role)
      ? (
          await db.query(
            `select id, reference, to_char(due_date, 'YYYY-MM-DD') as due_date, billing, total_pence, paid_pence
               from family_invoices where credit_note_id is null and paid_pence < total_pence
              order by due_date, reference limit 50`,
          )
        ).rows
          .map(withMoney)
          .map((row) => ({
            id: row.id,
            reference: row.reference,
            billedTo: String(row.billing?.name ?? ''),
            dueDate: row.due_date,
            outstanding: toPounds(row.total_pence - row.paid_pence),
          }))
      : [];

    const currentStudents = tutorOnly
      ? (
          await db.query(
            `select distinct ts.child_id, ch.first_name, ch.last_name
               from tutor_students ts join children ch on ch.id = ts.child_id
               join engagements e on e.id = ts.engagement_id
              where ts.tutor_id = $1 and e.start_date <= $2::date and (e.end_date is null or e.end_date >= $2::date)
              order by ch.last_name, ch.first_name`,
            [tutorOnly, date],
          )
        ).rows.map((row) => ({ studentId: row.child_id, name: `${row.first_name} ${row.last_name}` }))
      : [];

    return redactForRole(user.role, {
      thisMonth: await monthFigures(thisMonth),
      lastMonth: await monthFigures(monthBefore(thisMonth)),
      awaitingConfirmation: await invoices('not i.confirmed'),
      confirmedUnpaid: await staffOnly(() => invoices('i.confirmed and i.paid_pence < i.commission_pence')),
      tutorsWithoutLessons,
      unpaidFamilyInvoices,
      currentStudents,
    });
  });
}
