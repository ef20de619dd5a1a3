import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectionTestBed } from '../testing/projection-test-bed';
import { engagementsProjection } from './projection';

describe('engagements read model', () => {
  let bed: Awaited<ReturnType<typeof projectionTestBed>>;
  beforeAll(async () => {
    bed = await projectionTestBed([engagementsProjection]);
  });
  afterAll(() => bed.close());

  it('holds each engagement with its latest terms, its history periods and its student', async () => {
    const engagementId = randomUUID();
    const tutorId = randomUUID();
    const streamId = `engagement-${engagementId}`;
    await bed.given(
      {
        streamId,
        type: 'EngagementStarted',
        data: {
          engagementId,
          tutorId,
          studentId: 's-1',
          startDate: '2026-01-01',
          ratePence: 3000,
          commissionBp: 2500,
          partnerBp: 1000,
          subjects: ['Maths'],
        },
      },
      {
        streamId,
        type: 'EngagementRatesChanged',
        data: { engagementId, from: '2026-02-01', ratePence: 3500, commissionBp: 2000, partnerBp: 1000 },
      },
      {
        streamId,
        type: 'EngagementSubjectsChanged',
        data: { engagementId, from: '2026-03-01', subjects: ['Physics'] },
      },
    );
    const engagementRow = `select tutor_id, student_id, to_char(start_date, 'YYYY-MM-DD') as start_date,
      to_char(end_date, 'YYYY-MM-DD') as end_date, rate_pence::int as rate, commission_bp, partner_bp, subjects
      from engagements where id = $1`;
    expect(await bed.rows(engagementRow, [engagementId])).toEqual([
      {
        tutor_id: tutorId,
        student_id: 's-1',
        start_date: '2026-01-01',
        end_date: null,
        rate: 3500,
        commission_bp: 2000,
        partner_bp: 1000,
        subjects: ['Physics'],
      },
    ]);
    expect(
      await bed.rows(
        `select to_char(start_date, 'YYYY-MM-DD') as start_date, to_char(end_date, 'YYYY-MM-DD') as end_date,
                rate_pence::int as rate, commission_bp, subjects
           from engagement_periods where engagement_id = $1 order by start_date`,
        [engagementId],
      ),
    ).toEqual([
      { start_date: '2026-01-01', end_date: '2026-01-31', rate: 3000, commission_bp: 2500, subjects: ['Maths'] },
      { start_date: '2026-02-01', end_date: '2026-02-28', rate: 3500, commission_bp: 2000, subjects: ['Maths'] },
      { start_date: '2026-03-01', end_date: null, rate: 3500, commission_bp: 2000, subjects: ['Physics'] },
    ]);
    const students = 'select tutor_id, child_id, current from tutor_students where engagement_id = $1';
    expect(await bed.rows(students, [engagementId])).toEqual([{ tutor_id: tutorId, child_id: 's-1', current: true }]);

    await bed.given({ streamId, type: 'EngagementEnded', data: { engagementId, endDate: '2026-06-30' } });
    expect((await bed.rows(engagementRow, [engagementId]))[0].end_date).toBe('2026-06-30');
    expect(await bed.rows(students, [engagementId])).toEqual([{ tutor_id: tutorId, child_id: 's-1', current: false }]);
  });
});
