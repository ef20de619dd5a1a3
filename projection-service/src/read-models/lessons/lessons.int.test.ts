import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lesson } from '../testing/lesson-details';
import { projectionTestBed } from '../testing/projection-test-bed';
import { lessonsProjection } from './projection';

describe('lessons read model', () => {
  let bed: Awaited<ReturnType<typeof projectionTestBed>>;
  beforeAll(async () => {
    bed = await projectionTestBed([lessonsProjection]);
  });
  afterAll(() => bed.close());

  it('keeps each lesson at its latest values, drops removed ones and records locked months', async () => {
    const tutorId = randomUUID();
    const streamId = `timesheet-${tutorId}-2026-03`;
    const kept = lesson();
    const removed = lesson({ date: '2026-03-03' });
    const month = '2026-03';
    await bed.given(
      { streamId, type: 'LessonRecorded', data: { tutorId, month, lesson: kept } },
      { streamId, type: 'LessonRecorded', data: { tutorId, month, lesson: removed } },
      {
        streamId,
        type: 'LessonChanged',
        data: { tutorId, month, lesson: { ...kept, amountPence: 5000, amountEdited: true, commissionPence: 1250 } },
      },
      { streamId, type: 'LessonRemoved', data: { tutorId, month, lessonId: removed.lessonId } },
      { streamId, type: 'TimesheetMonthLocked', data: { tutorId, month, invoiceId: `${tutorId}_2026-03` } },
    );
    expect(
      await bed.rows(
        `select id, month, to_char(date, 'YYYY-MM-DD') as date, duration_hundredths::int as duration,
                amount_pence::int as amount, amount_edited, commission_pence::int as commission,
                partner_commission_pence::int as partner
           from lessons where tutor_id = $1`,
        [tutorId],
      ),
    ).toEqual([
      {
        id: kept.lessonId,
        month,
        date: '2026-03-02',
        duration: 150,
        amount: 5000,
        amount_edited: true,
        commission: 1250,
        partner: 113,
      },
    ]);
    expect(await bed.rows('select month, invoice_id from locked_months where tutor_id = $1', [tutorId])).toEqual([
      { month, invoice_id: `${tutorId}_2026-03` },
    ]);
  });

  it('applies a batch set-based with the same outcome as event by event: re-recorded, removed, unlocked', async () => {
    const tutorId = randomUUID();
    const streamId = `timesheet-${tutorId}-2026-04`;
    const month = '2026-04';
    const again = lesson({ date: '2026-04-06' });
    const gone = lesson({ date: '2026-04-07' });
    const invoiceId = `${tutorId}_2026-04`;
    await bed.given(
      { streamId, type: 'LessonRecorded', data: { tutorId, month, lesson: again } },
      { streamId, type: 'LessonRemoved', data: { tutorId, month, lessonId: again.lessonId } },
      { streamId, type: 'LessonRecorded', data: { tutorId, month, lesson: { ...again, duration: 100 } } },
      { streamId, type: 'LessonRecorded', data: { tutorId, month, lesson: gone } },
      { streamId, type: 'LessonChanged', data: { tutorId, month, lesson: { ...gone, duration: 200 } } },
      { streamId, type: 'LessonRemoved', data: { tutorId, month, lessonId: gone.lessonId } },
      { streamId, type: 'TimesheetMonthLocked', data: { tutorId, month, invoiceId } },
      { streamId, type: 'TimesheetMonthUnlocked', data: { tutorId, month, invoiceId } },
    );
    expect(
      await bed.rows('select id, duration_hundredths::int as duration from lessons where tutor_id = $1', [tutorId]),
    ).toEqual([{ id: again.lessonId, duration: 100 }]);
    expect(await bed.rows('select 1 from locked_months where tutor_id = $1', [tutorId])).toEqual([]);
  });
});
