import type { LessonDetails, LessonEvent } from '@agency/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EngagementSummary } from '../engagement/engagement';
import { DomainError, fold } from '../shared/decider';
import { specFor } from '../testing/given-when-then';
import { type Actor, lessonsOf, monthName, type TimesheetCommand, timesheetDecider, totalsOf } from './timesheet';

const given = specFor(timesheetDecider);
const admin: Actor = { role: 'admin' };
const tutor: Actor = { role: 'tutor', tutorId: 't1' };
const key = { tutorId: 't1', month: '2026-03' };

/** £40 an hour at 25 % commission and a 10 % partner share until 14 March, then £45 at 20 %. */
const engagement: EngagementSummary = {
  engagementId: 'e1',
  tutorId: 't1',
  studentId: 's1',
  startDate: '2026-01-05',
  endDate: '2026-03-31',
  periods: [
    {
      startDate: '2026-01-05',
      endDate: '2026-03-14',
      ratePence: 4000,
      commissionBp: 2500,
      partnerBp: 1000,
      subjects: ['Maths'],
    },
    {
      startDate: '2026-03-15',
      endDate: '2026-03-31',
      ratePence: 4500,
      commissionBp: 2000,
      partnerBp: 1000,
      subjects: ['Maths'],
    },
  ],
};

const record = (over: Partial<Extract<TimesheetCommand, { type: 'RecordLesson' }>> = {}): TimesheetCommand => ({
  type: 'RecordLesson',
  ...key,
  lessonId: 'l1',
  engagement,
  date: '2026-03-02',
  actor: tutor,
  ...over,
});

const lesson: LessonDetails = {
  lessonId: 'l1',
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
};
const recorded: LessonEvent = { type: 'LessonRecorded', data: { ...key, lesson } };
const locked: LessonEvent = { type: 'TimesheetMonthLocked', data: { ...key, invoiceId: 'i1' } };

describe('recording a lesson', () => {
  it('defaults to one hour at the rate, with commission and partner share of the period in force', () => {
    given([]).when(record()).thenEvents([recorded]);
  });

  it('prices duration × the rate in force on the lesson date, half-up per lesson', () => {
    const later = {
      ...lesson,
      date: '2026-03-16',
      duration: 150,
      ratePence: 4500,
      amountPence: 6750,
      commissionBp: 2000,
      commissionPence: 1350,
      partnerCommissionPence: 135,
    };
    given([])
      .when(record({ date: '2026-03-16', duration: 150 }))
      .thenEvents([{ type: 'LessonRecorded', data: { ...key, lesson: later } }]);
    // 0.33 h × £40 = £13.20; 25 % = £3.30; 10 % of that = 33p
    given([])
      .when(record({ duration: 33 }))
      .thenEvents([
        {
          type: 'LessonRecorded',
          data: {
            ...key,
            lesson: { ...lesson, duration: 33, amountPence: 1320, commissionPence: 330, partnerCommissionPence: 33 },
          },
        },
      ]);
  });

  it('keeps an amount typed directly and takes commission on it', () => {
    given([])
      .when(record({ amountPence: 3555 }))
      .thenEvents([
        {
          type: 'LessonRecorded',
          data: {
            ...key,
            lesson: {
              ...lesson,
              amountPence: 3555,
              amountEdited: true,
              commissionPence: 889,
              partnerCommissionPence: 89,
            },
          },
        },
      ]);
  });

  it('records nothing for a duration of 0', () => {
    given([])
      .when(record({ duration: 0 }))
      .thenEvents([]);
  });

  it('refuses a date outside the engagement or outside the month of the timesheet', () => {
    const started = {
      ...engagement,
      startDate: '2026-03-10',
      periods: [{ ...engagement.periods[1], startDate: '2026-03-10' }],
    };
    given([])
      .when(record({ engagement: started, date: '2026-03-09' }))
      .thenRefused('invalid', 'no engagement with this student on 2026-03-09: it runs from 2026-03-10 to 2026-03-31');
    given([])
      .when(record({ date: '2026-04-01' }))
      .thenRefused('invalid', "not in March 2026; record it on that month's timesheet");
  });

  it('refuses a negative duration and more than 12 hours a day with one student', () => {
    given([])
      .when(record({ duration: -50 }))
      .thenRefused('invalid', 'Duration cannot be negative');
    given([])
      .when(record({ duration: 1201 }))
      .thenRefused('invalid', 'No more than 12 hours');
    given([recorded])
      .when(record({ lessonId: 'l2', duration: 1101 }))
      .thenRefused('invalid', 'No more than 12 hours');
    given([recorded])
      .when(record({ lessonId: 'l2', duration: 1100 }))
      .thenEvents([{ type: 'LessonRecorded', data: { ...key, lesson: expect.objectContaining({ duration: 1100 }) } }]);
  });

  it("refuses a negative edited amount and a lesson for another tutor's engagement", () => {
    given([])
      .when(record({ amountPence: -1 }))
      .thenRefused('invalid', 'Amount cannot be negative');
    given([])
      .when(record({ engagement: { ...engagement, tutorId: 't2' } }))
      .thenRefused('invalid', "not one of this tutor's");
  });

  it('refuses a tutor recording for another tutor and a partner recording for a tutor not their own', () => {
    given([])
      .when(record({ actor: { role: 'tutor', tutorId: 't2' } }))
      .thenRefused('forbidden', 'only on their own timesheet');
    given([])
      .when(record({ actor: { role: 'partner', tutorId: 't2' } }))
      .thenRefused('forbidden', 'only for their own tutor');
    given([])
      .when(record({ actor: { role: 'partner', tutorId: 't1' } }))
      .thenEvents([recorded]);
    given([])
      .when(record({ actor: admin }))
      .thenEvents([recorded]);
  });

  it('refuses the same lesson twice', () => {
    given([recorded]).when(record()).thenRefused('conflict', 'already recorded');
  });
});

describe('changing and removing a lesson', () => {
  const change = (over: Partial<Extract<TimesheetCommand, { type: 'ChangeLesson' }>> = {}): TimesheetCommand => ({
    type: 'ChangeLesson',
    ...key,
    lessonId: 'l1',
    engagement,
    date: '2026-03-02',
    duration: 200,
    actor: tutor,
    ...over,
  });

  it('reprices a changed duration', () => {
    given([recorded])
      .when(change())
      .thenEvents([
        {
          type: 'LessonChanged',
          data: {
            ...key,
            lesson: { ...lesson, duration: 200, amountPence: 8000, commissionPence: 2000, partnerCommissionPence: 200 },
          },
        },
      ]);
  });

  it('a duration of 0 removes the lesson; so does an explicit removal', () => {
    const removed: LessonEvent = { type: 'LessonRemoved', data: { ...key, lessonId: 'l1' } };
    given([recorded])
      .when(change({ duration: 0 }))
      .thenEvents([removed]);
    given([recorded])
      .when({ type: 'RemoveLesson', ...key, lessonId: 'l1', actor: tutor })
      .thenEvents([removed]);
    const state = fold(timesheetDecider, [recorded, removed]);
    expect(lessonsOf(state)).toEqual([]);
  });

  it('records nothing when nothing changes', () => {
    given([recorded])
      .when(change({ duration: 100 }))
      .thenEvents([]);
  });

  it('refuses an unknown lesson and a move to another student', () => {
    given([]).when(change()).thenRefused('not_found');
    given([])
      .when({ type: 'RemoveLesson', ...key, lessonId: 'l9', actor: tutor })
      .thenRefused('not_found');
    given([recorded])
      .when(change({ engagement: { ...engagement, engagementId: 'e2' } }))
      .thenRefused('invalid', 'cannot move to another student');
  });

  it('refuses another tutor changing or removing', () => {
    const other: Actor = { role: 'tutor', tutorId: 't2' };
    given([recorded])
      .when(change({ actor: other }))
      .thenRefused('forbidden');
    given([recorded])
      .when({ type: 'RemoveLesson', ...key, lessonId: 'l1', actor: other })
      .thenRefused('forbidden');
  });
});

describe('an invoiced month', () => {
  it('locks when the invoice is generated; locking again records nothing', () => {
    given([recorded])
      .when({ type: 'LockMonth', ...key, invoiceId: 'i1' })
      .thenEvents([locked]);
    given([recorded, locked])
      .when({ type: 'LockMonth', ...key, invoiceId: 'i1' })
      .thenEvents([]);
    given([])
      .when({ type: 'LockMonth', ...key, invoiceId: 'i1' })
      .thenEvents([locked]);
  });

  it('refuses any lesson recorded, changed or removed afterwards, even by an admin', () => {
    given([recorded, locked])
      .when(record({ lessonId: 'l2', actor: admin }))
      .thenRefused('locked', 'The lessons of March 2026 are locked');
    given([recorded, locked])
      .when({
        type: 'ChangeLesson',
        ...key,
        lessonId: 'l1',
        engagement,
        date: '2026-03-02',
        duration: 200,
        actor: admin,
      })
      .thenRefused('locked');
    given([recorded, locked])
      .when({ type: 'RemoveLesson', ...key, lessonId: 'l1', actor: admin })
      .thenRefused('locked');
  });

  it('keeps its lessons for the invoice', () => {
    expect(lessonsOf(fold(timesheetDecider, [recorded, locked]))).toEqual([lesson]);
  });

  it('opens again when its invoice is withdrawn: lessons can be recorded and the month locked anew', () => {
    const unlocked: LessonEvent = { type: 'TimesheetMonthUnlocked', data: { ...key, invoiceId: 'i1' } };
    given([recorded, locked])
      .when({ type: 'UnlockMonth', ...key, invoiceId: 'i1' })
      .thenEvents([unlocked]);
    given([recorded, locked, unlocked])
      .when(record({ lessonId: 'l2', date: '2026-03-09', actor: admin }))
      .thenEvents([
        { type: 'LessonRecorded', data: { ...key, lesson: { ...lesson, lessonId: 'l2', date: '2026-03-09' } } },
      ]);
    given([recorded, locked, unlocked])
      .when({ type: 'LockMonth', ...key, invoiceId: 'i1' })
      .thenEvents([locked]);
  });

  it('is unlocked only for the invoice that locked it, and only once', () => {
    given([recorded, locked])
      .when({ type: 'UnlockMonth', ...key, invoiceId: 'other' })
      .thenEvents([]);
    given([recorded])
      .when({ type: 'UnlockMonth', ...key, invoiceId: 'i1' })
      .thenEvents([]);
  });
});

describe('month totals', () => {
  it('names months for people', () => {
    expect(monthName('2026-03')).toBe('March 2026');
    expect(monthName('2025-12')).toBe('December 2025');
  });

  it('always equal the sums of the lessons, exact in pence', () => {
    const day = fc.integer({ min: 1, max: 31 }).map((d) => `2026-03-${String(d).padStart(2, '0')}`);
    const entry = fc.record({
      date: day,
      duration: fc.integer({ min: 0, max: 400 }),
      amountPence: fc.option(fc.integer({ min: 0, max: 50_000 }), { nil: undefined }),
    });
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 40 }), (entries) => {
        let state = timesheetDecider.initialState();
        entries.forEach((e, index) => {
          const command = record({ lessonId: `l${index}`, ...e });
          try {
            const events = timesheetDecider.decide(command, state, new Date());
            state = events.reduce(timesheetDecider.evolve, state);
          } catch (error) {
            // over 12 hours that day: refused, as it should be
            if (!(error instanceof DomainError)) throw error;
          }
        });
        const lessons = lessonsOf(state);
        const totals = totalsOf(lessons);
        const sum = (pick: (l: LessonDetails) => number) => lessons.reduce((s, l) => s + pick(l), 0);
        expect(totals).toEqual({
          amountPence: sum((l) => l.amountPence),
          commissionPence: sum((l) => l.commissionPence),
          partnerCommissionPence: sum((l) => l.partnerCommissionPence),
        });
        for (const l of lessons) {
          expect(Number.isInteger(l.amountPence) && Number.isInteger(l.commissionPence)).toBe(true);
          if (!l.amountEdited) expect(Math.abs(l.amountPence * 100 - l.duration * l.ratePence)).toBeLessThanOrEqual(50);
        }
      }),
    );
  });
});
