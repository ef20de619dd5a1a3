import type { LessonDetails, LessonEvent } from '@agency/contracts';
import { describe, expect, it } from 'vitest';
import type { EngagementSummary } from '../engagement/engagement';
import { specFor } from '../testing/given-when-then';
import { type Actor, cellLessonId, gridLessonId, type TimesheetCommand, timesheetDecider } from './timesheet';

const given = specFor(timesheetDecider);
const tutor: Actor = { role: 'tutor', tutorId: 't1' };
const key = { tutorId: 't1', month: '2026-03' };

/** £40 an hour at 25 % commission and a 10 % partner share. */
const engagement: EngagementSummary = {
  engagementId: 'e1',
  tutorId: 't1',
  studentId: 's1',
  startDate: '2026-01-05',
  endDate: null,
  periods: [
    {
      startDate: '2026-01-05',
      endDate: null,
      ratePence: 4000,
      commissionBp: 2500,
      partnerBp: 1000,
      subjects: ['Maths'],
    },
  ],
};

const cellId = gridLessonId('e1', '2026-03-02');

/** A save of the cell (e1, 2 March); without `lessonId` the cell was empty when the user typed. */
const save = (over: Partial<Extract<TimesheetCommand, { type: 'SaveLessonCell' }>> = {}): TimesheetCommand => ({
  type: 'SaveLessonCell',
  ...key,
  engagement,
  date: '2026-03-02',
  duration: 100,
  actor: tutor,
  ...over,
});

const priced = (over: Partial<LessonDetails> = {}): LessonDetails => ({
  lessonId: cellId,
  engagementId: 'e1',
  studentId: 's1',
  date: '2026-03-02',
  duration: 100,
  ratePence: 4000,
  amountPence: 4000,
  amountEdited: false,
  commissionBp: 2500,
  commissionPence: 1000,
  partnerBp: 1000,
  partnerCommissionPence: 100,
  ...over,
});
const recorded = (lesson: LessonDetails): LessonEvent => ({ type: 'LessonRecorded', data: { ...key, lesson } });
const changed = (lesson: LessonDetails): LessonEvent => ({ type: 'LessonChanged', data: { ...key, lesson } });
const locked: LessonEvent = { type: 'TimesheetMonthLocked', data: { ...key, invoiceId: 'i1' } };

/** 1.5 hours whose amount was typed as £52.50. */
const typed = priced({
  duration: 150,
  amountPence: 5250,
  amountEdited: true,
  commissionPence: 1313,
  partnerCommissionPence: 131,
});

describe('saving a cell of the lesson grid', () => {
  it('names an empty cell’s lesson by its engagement and date, so two people typing into it make one lesson', () => {
    given([])
      .when(save())
      .thenEvents([recorded(priced())]);
  });

  it('records the lesson when the cell was empty, priced at the rate unless an amount is typed', () => {
    given([])
      .when(save({ duration: 150, amountPence: 5250 }))
      .thenEvents([recorded(typed)]);
  });

  it('records nothing for an empty cell saved with no duration', () => {
    given([])
      .when(save({ duration: 0 }))
      .thenEvents([]);
  });

  it('changes the lesson the cell showed', () => {
    given([recorded(priced())])
      .when(save({ lessonId: cellId, duration: 200 }))
      .thenEvents([
        changed(priced({ duration: 200, amountPence: 8000, commissionPence: 2000, partnerCommissionPence: 200 })),
      ]);
  });

  it('removes the lesson the cell showed when its duration becomes 0', () => {
    given([recorded(priced())])
      .when(save({ lessonId: cellId, duration: 0 }))
      .thenEvents([{ type: 'LessonRemoved', data: { ...key, lessonId: cellId } }]);
  });

  it('keeps a typed amount when the duration is saved unchanged', () => {
    given([recorded(typed)])
      .when(save({ lessonId: cellId, duration: 150 }))
      .thenEvents([]);
  });

  it('prices at the rate again when the duration of a typed amount changes', () => {
    given([recorded(typed)])
      .when(save({ lessonId: cellId, duration: 200 }))
      .thenEvents([
        changed(priced({ duration: 200, amountPence: 8000, commissionPence: 2000, partnerCommissionPence: 200 })),
      ]);
  });

  it('refuses a cell someone else filled after the user saw it empty, rather than overwrite their lesson', () => {
    given([recorded(priced())])
      .when(save({ duration: 200 }))
      .thenRefused(
        'conflict',
        'Someone else has just recorded a lesson with this student on 2026-03-02. The cell has been reloaded.',
      );
  });

  it('refuses a lesson the cell showed that is no longer on the timesheet', () => {
    given([])
      .when(save({ lessonId: cellId }))
      .thenRefused('not_found', 'There is no such lesson on this timesheet.');
    given([recorded(priced())])
      .when(save({ lessonId: 'elsewhere' }))
      .thenRefused('not_found', 'There is no such lesson on this timesheet.');
  });

  it('says the month is locked, not that the cell was taken, once the month is invoiced', () => {
    given([recorded(priced()), locked])
      .when(save({ duration: 200 }))
      .thenRefused('locked', 'The lessons of March 2026 are locked: the month has been invoiced.');
    given([recorded(priced()), locked])
      .when(save({ lessonId: cellId, duration: 200 }))
      .thenRefused('locked');
  });

  it('keeps the rules of recording and changing: the actor, the engagement dates, 12 hours a day', () => {
    given([])
      .when(save({ actor: { role: 'tutor', tutorId: 't2' } }))
      .thenRefused('forbidden');
    given([])
      .when(save({ date: '2026-01-02', month: '2026-01' }))
      .thenRefused('invalid', /no engagement with this student on 2026-01-02/);
    given([])
      .when(save({ duration: 1300 }))
      .thenRefused('invalid', 'No more than 12 hours of lessons a day with one student.');
  });
});

describe('the lesson of a cell', () => {
  it('is the one the cell showed, or the cell’s own', () => {
    const cell = { engagement: { engagementId: 'e1' }, date: '2026-03-02' };
    expect(gridLessonId('e1', '2026-03-03')).toBe('e1.2026-03-03');
    expect(cellLessonId(cell)).toBe('e1.2026-03-02');
    expect(cellLessonId({ ...cell, lessonId: 'l9' })).toBe('l9');
  });
});
