import { FAMILY_OVERVIEW_RECENT, type FamilyOverviewAnswer } from '@agency/contracts';
import { toHours, toPounds } from '@agency/domain';
import type pg from 'pg';
import { withMoney } from '../money-columns';
import { invoiceOwedSql, invoiceStateSql } from './invoice-state';

const fullName = (alias: string) => `coalesce(${alias}.first_name || ' ' || ${alias}.last_name, '')`;

const OWED = invoiceOwedSql('f');

/**
 * A family's page beyond its contacts and children: what it owes in all, its latest invoices, the
 * latest lessons delivered to its children (on `today` or before) and its tutors. Lessons and
 * tutors are read by name and date only: never a rate, a price, a commission or a share
 * (contracts/src/visibility.ts hides a partner's share from tutors; this answer holds none at all).
 */
export async function familyOverview(db: pg.Pool, clientId: string, today: string): Promise<FamilyOverviewAnswer> {
  const [sums, invoices, lessons, tutors] = await Promise.all([
    db.query(
      `select count(*)::int as invoice_count, coalesce(sum(${OWED}), 0) as owed_pence
         from family_invoices f where f.client_id = $1`,
      [clientId],
    ),
    db.query(
      `select f.id, f.reference, to_char(f.date, 'YYYY-MM-DD') as date, to_char(f.due_date, 'YYYY-MM-DD') as due_date,
              f.billed_kind, f.total_pence, f.paid_pence, ${OWED} as owed_pence, ${invoiceStateSql('f')} as state,
              f.credit_note_id,
              f.credit_note_reference, to_char(f.credit_note_date, 'YYYY-MM-DD') as credit_note_date
         from family_invoices f where f.client_id = $1
        order by f.date desc, f.reference desc
        limit $2`,
      [clientId, FAMILY_OVERVIEW_RECENT.invoices],
    ),
    // Through the lessons' (tutor, month, date) index: the family's tutors are few, each with a
    // few thousand lessons at most, where every lesson of the agency runs to a million.
    db.query(
      `select l.id, to_char(l.date, 'YYYY-MM-DD') as date, l.student_id, ${fullName('ch')} as child, l.tutor_id,
              ${fullName('t')} as tutor, l.duration_hundredths
         from lessons l
         join children ch on ch.id = l.student_id
         left join tutors t on t.id = l.tutor_id
        where l.tutor_id = any(array(select e.tutor_id from engagements e join children c on c.id = e.student_id
                                      where c.client_id = $1))
          and ch.client_id = $1 and l.date <= $2::date
        order by l.date desc, l.id desc
        limit $3`,
      [clientId, today, FAMILY_OVERVIEW_RECENT.lessons],
    ),
    db.query(
      `select e.tutor_id as id, ${fullName('t')} as name,
              array_agg(distinct ${fullName('ch')} order by ${fullName('ch')}) as children,
              array(select distinct s.subject
                      from engagements e2 join children c2 on c2.id = e2.student_id,
                           jsonb_array_elements_text(e2.subjects) as s(subject)
                     where e2.tutor_id = e.tutor_id and c2.client_id = $1
                     order by s.subject) as subjects,
              to_char(min(e.start_date), 'YYYY-MM-DD') as since,
              bool_or(e.end_date is null or e.end_date >= $2::date) as current
         from engagements e
         join children ch on ch.id = e.student_id
         left join tutors t on t.id = e.tutor_id
        where ch.client_id = $1
        group by e.tutor_id, t.first_name, t.last_name
        order by bool_or(e.end_date is null or e.end_date >= $2::date) desc, ${fullName('t')}, e.tutor_id`,
      [clientId, today],
    ),
  ]);
  const whole = withMoney(sums.rows[0]);
  return {
    owed: toPounds(whole.owed_pence),
    invoiceCount: whole.invoice_count,
    invoices: invoices.rows.map(withMoney).map((row) => ({
      id: row.id,
      reference: row.reference,
      date: row.date,
      dueDate: row.due_date,
      billedFor: row.billed_kind,
      total: toPounds(row.total_pence),
      paid: toPounds(row.paid_pence),
      owed: toPounds(row.owed_pence),
      state: row.state,
      creditNote:
        row.credit_note_id && row.credit_note_reference && row.credit_note_date
          ? { id: row.credit_note_id, reference: row.credit_note_reference, date: row.credit_note_date }
          : null,
    })),
    lessons: lessons.rows.map(withMoney).map((row) => ({
      id: row.id,
      date: row.date,
      childId: row.student_id,
      child: row.child,
      tutorId: row.tutor_id,
      tutor: row.tutor,
      duration: toHours(row.duration_hundredths),
    })),
    tutors: tutors.rows.map((row) => ({
      id: row.id,
      name: row.name,
      children: row.children,
      subjects: row.subjects,
      since: row.since,
      current: row.current,
    })),
  };
}
