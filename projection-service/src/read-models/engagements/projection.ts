import type { EngagementEvent } from '@agency/contracts';
import { engagement } from '@agency/domain';
import type pg from 'pg';
import { defineProjection, type RecordedEventOf } from '../projection';

/**
 * Folds each engagement with the domain's own `evolve`, then writes its current terms, its
 * history periods, and which tutor teaches which child (tutor_students).
 */
async function project(sql: pg.ClientBase, recorded: RecordedEventOf<EngagementEvent>) {
  const id = recorded.data.engagementId;
  const found = await sql.query('select state from engagements where id = $1', [id]);
  const state = engagement.evolve(found.rows[0]?.state ?? engagement.initialState(), recorded);
  const summary = engagement.summaryOf(state);
  if (!summary) return;
  const periods = summary.periods;
  const latest = periods[periods.length - 1];
  if (!latest) return;
  await sql.query(
    `insert into engagements (id, tutor_id, student_id, start_date, end_date, rate_pence, commission_bp, partner_bp, subjects, state)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
     on conflict (id) do update set start_date = $4, end_date = $5, rate_pence = $6, commission_bp = $7,
       partner_bp = $8, subjects = $9, state = $10`,
    [
      id,
      summary.tutorId,
      summary.studentId,
      summary.startDate,
      summary.endDate,
      latest.ratePence,
      latest.commissionBp,
      latest.partnerBp,
      JSON.stringify(latest.subjects),
      JSON.stringify(state),
    ],
  );
  await sql.query('delete from engagement_periods where engagement_id = $1', [id]);
  for (const period of periods) {
    await sql.query(
      `insert into engagement_periods (engagement_id, start_date, end_date, rate_pence, commission_bp, partner_bp, subjects)
       values ($1, $2, $3, $4, $5, $6, $7)`,
      [
        id,
        period.startDate,
        period.endDate,
        period.ratePence,
        period.commissionBp,
        period.partnerBp,
        JSON.stringify(period.subjects),
      ],
    );
  }
  await sql.query(
    `insert into tutor_students (tutor_id, child_id, engagement_id, current) values ($1, $2, $3, $4)
     on conflict (engagement_id) do update set current = $4`,
    [summary.tutorId, summary.studentId, id, summary.endDate === null],
  );
}

export const engagementsProjection = defineProjection<EngagementEvent>({
  name: 'engagements',
  version: 1,
  migrations: ['004_tutor_students.sql', '006_engagements.sql'],
  handlers: {
    EngagementStarted: project,
    EngagementRatesChanged: project,
    EngagementSubjectsChanged: project,
    EngagementPeriodCorrected: project,
    EngagementEnded: project,
  },
});
