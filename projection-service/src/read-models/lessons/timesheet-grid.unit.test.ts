import type { LessonDetails } from '@agency/contracts';
import type { engagement } from '@agency/domain';
import { describe, expect, it } from 'vitest';
import { timesheetGrid } from './timesheet-grid';

type EngagementSummary = engagement.EngagementSummary;

const period = { commissionBp: 2500, partnerBp: 1000, subjects: ['Maths'] };
/** £40 an hour until 4 March, £45 from 5 March; ends 6 March. */
const ending: EngagementSummary = {
  engagementId: 'e1',
  tutorId: 't1',
  studentId: 's1',
  startDate: '2026-01-05',
  endDate: '2026-03-06',
  periods: [
    { ...period, startDate: '2026-01-05', endDate: '2026-03-04', ratePence: 4000 },
    { ...period, startDate: '2026-03-05', endDate: '2026-03-06', ratePence: 4500 },
  ],
};
const starting: EngagementSummary = {
  engagementId: 'e2',
  tutorId: 't1',
  studentId: 's2',
  startDate: '2026-03-20',
  endDate: null,
  periods: [{ ...period, startDate: '2026-03-20', endDate: null, ratePence: 3000 }],
};
const lesson: LessonDetails = {
  lessonId: 'e1.2026-03-03',
  engagementId: 'e1',
  studentId: 's1',
  date: '2026-03-03',
  duration: 150,
  ratePence: 4000,
  amountPence: 6000,
  amountEdited: false,
  commissionBp: 2500,
  commissionPence: 1500,
  partnerBp: 1000,
  partnerCommissionPence: 150,
};

describe('the lesson entry grid', () => {
  it('has a row per engagement alive in the week, a cell per date with the lesson and the rate of that day', () => {
    const grid = timesheetGrid({
      month: '2026-03',
      from: '2026-03-02',
      to: '2026-03-08',
      engagements: [
        { summary: starting, studentName: 'Zoe Adams' },
        { summary: ending, studentName: 'Amy Brown' },
      ],
      lessons: [lesson],
      locked: false,
    });
    expect(grid.dates).toHaveLength(7);
    expect(grid.students.map((row) => row.studentName)).toEqual(['Amy Brown']);
    const [row] = grid.students;
    expect(row.rate).toBe(45);
    expect(row.lessons[1]).toEqual({
      date: '2026-03-03',
      id: 'e1.2026-03-03',
      duration: 1.5,
      amount: 60,
      amountEdited: false,
      locked: false,
      open: true,
      rate: 40,
    });
    expect(row.lessons[3]).toMatchObject({ date: '2026-03-05', duration: 0, amount: 0, open: true, rate: 45 });
    expect(row.lessons[6]).toMatchObject({ date: '2026-03-08', open: false, rate: null });
  });

  it('marks every cell locked once the month is invoiced', () => {
    const grid = timesheetGrid({
      month: '2026-03',
      from: '2026-03-23',
      to: '2026-03-29',
      engagements: [{ summary: starting, studentName: 'Zoe Adams' }],
      lessons: [],
      locked: true,
    });
    expect(grid.students[0].lessons.every((cell) => cell.locked)).toBe(true);
    expect(grid.students[0].lessons.map((cell) => cell.open)).toEqual([true, true, true, true, true, true, true]);
  });
});
