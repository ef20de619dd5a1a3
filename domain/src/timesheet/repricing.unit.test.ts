import type { EngagementEvent, LessonDetails, LessonEvent } from '@agency/contracts';
import { describe, expect, it } from 'vitest';
import { type EngagementSummary, termsChangedFrom } from '../engagement/engagement';
import { DomainError, fold } from '../shared/decider';
import { specFor } from '../testing/given-when-then';
import { awaitsRepricing, invoicedMonthsRefusal, monthAfter, monthsToReprice, repricingAfter } from './repricing';
import { type TimesheetCommand, timesheetDecider } from './timesheet';

const given = specFor(timesheetDecider);
const key = { tutorId: 't1', month: '2025-09' };
const terms = { commissionBp: 2500, partnerBp: 1000, subjects: ['Maths'] };

/** £28 an hour at 25 % from June; the rate change makes it £30 at 20 % from 1 September. */
const before: EngagementSummary = {
  engagementId: 'e1',
  tutorId: 't1',
  studentId: 's1',
  startDate: '2025-06-02',
  endDate: null,
  periods: [{ startDate: '2025-06-02', endDate: null, ratePence: 2800, ...terms }],
};
const after: EngagementSummary = {
  ...before,
  periods: [
    { ...before.periods[0]!, endDate: '2025-08-31' },
    { startDate: '2025-09-01', endDate: null, ratePence: 3000, ...terms, commissionBp: 2000 },
  ],
};
const rateChange: EngagementEvent = {
  type: 'EngagementRatesChanged',
  data: { engagementId: 'e1', from: '2025-09-01', ratePence: 3000, commissionBp: 2000, partnerBp: 1000 },
};

const priced = (over: Partial<LessonDetails>): LessonDetails => ({
  lessonId: 'l1',
  engagementId: 'e1',
  studentId: 's1',
  date: '2025-09-01',
  duration: 100,
  ratePence: 2800,
  amountPence: 2800,
  amountEdited: false,
  commissionBp: 2500,
  commissionPence: 700,
  partnerBp: 1000,
  partnerCommissionPence: 70,
  ...over,
});
const first = priced({});
const longer = priced({
  lessonId: 'l2',
  date: '2025-09-10',
  duration: 150,
  amountPence: 4200,
  commissionPence: 1050,
  partnerCommissionPence: 105,
});
const typed = priced({
  lessonId: 'l3',
  date: '2025-09-15',
  amountPence: 5000,
  amountEdited: true,
  commissionPence: 1250,
  partnerCommissionPence: 125,
});
/** Another student's lesson that month: another engagement, never repriced by this one's change. */
const other = priced({ lessonId: 'l4', engagementId: 'e2', studentId: 's2', date: '2025-09-10' });
const recorded = (lesson: LessonDetails): LessonEvent => ({ type: 'LessonRecorded', data: { ...key, lesson } });
const lessons = [first, longer, typed, other].map(recorded);
const locked: LessonEvent = { type: 'TimesheetMonthLocked', data: { ...key, invoiceId: 't1_2025-09' } };

const reprice = (from = '2025-09-01', engagement = after): TimesheetCommand => ({
  type: 'RepriceLessons',
  ...key,
  engagement,
  from,
});

describe('repricing the lessons of a month after a change of terms', () => {
  it('prices every lesson of the engagement on or after the date by the period in force, half-up per lesson', () => {
    given(lessons)
      .when(reprice())
      .thenEvents([
        {
          type: 'LessonsRepriced',
          data: {
            ...key,
            engagementId: 'e1',
            from: '2025-09-01',
            lessons: [
              {
                ...first,
                ratePence: 3000,
                amountPence: 3000,
                commissionBp: 2000,
                commissionPence: 600,
                partnerCommissionPence: 60,
              },
              {
                ...longer,
                ratePence: 3000,
                amountPence: 4500,
                commissionBp: 2000,
                commissionPence: 900,
                partnerCommissionPence: 90,
              },
              // The amount someone typed stays; its commission follows the period.
              { ...typed, ratePence: 3000, commissionBp: 2000, commissionPence: 1000, partnerCommissionPence: 100 },
            ],
          },
        },
      ]);
  });

  it('leaves the lessons before the date, and reprices nothing twice', () => {
    const fromTenth: LessonEvent = {
      type: 'LessonsRepriced',
      data: {
        ...key,
        engagementId: 'e1',
        from: '2025-09-10',
        lessons: [
          {
            ...longer,
            ratePence: 3000,
            amountPence: 4500,
            commissionBp: 2000,
            commissionPence: 900,
            partnerCommissionPence: 90,
          },
          { ...typed, ratePence: 3000, commissionBp: 2000, commissionPence: 1000, partnerCommissionPence: 100 },
        ],
      },
    };
    given(lessons).when(reprice('2025-09-10')).thenEvents([fromTenth]);
    given([...lessons, fromTenth])
      .when(reprice('2025-09-10'))
      .thenEvents([]);
  });

  it('changes nothing when the periods price every lesson as it is', () => {
    given(lessons).when(reprice('2025-09-01', before)).thenEvents([]);
  });

  it('never changes an invoiced month: refused when it would, nothing when nothing changes', () => {
    given([...lessons, locked])
      .when(reprice())
      .thenRefused('locked', /September 2025 are locked: the month has been invoiced/);
    given([...lessons, locked])
      .when(reprice('2025-09-01', before))
      .thenEvents([]);
  });

  it("refuses another tutor's engagement", () => {
    given(lessons)
      .when(reprice('2025-09-01', { ...after, tutorId: 't2' }))
      .thenRefused('invalid', "not one of this tutor's");
  });
});

describe('what follows in a month from a change of an engagement', () => {
  const sheet = (...events: LessonEvent[]) => fold(timesheetDecider, events);

  it('a change of rates or a corrected period reprices the month from its date; a change of subjects does not', () => {
    expect(repricingAfter(rateChange, after, '2025-09', sheet(...lessons))).toEqual(reprice());
    const corrected: EngagementEvent = {
      type: 'EngagementPeriodCorrected',
      data: { engagementId: 'e1', periodStart: '2025-09-15', startDate: '2025-09-10', ratePence: 3000, ...terms },
    };
    expect(repricingAfter(corrected, after, '2025-09', sheet(...lessons))).toEqual(reprice('2025-09-10'));
    const subjects: EngagementEvent = {
      type: 'EngagementSubjectsChanged',
      data: { engagementId: 'e1', from: '2025-09-01', subjects: ['Latin'] },
    };
    expect(repricingAfter(subjects, after, '2025-09', sheet(...lessons))).toBeUndefined();
  });

  it('nothing in a month with no lesson to reprice, nor in one invoiced after the change was decided', () => {
    expect(repricingAfter(rateChange, after, '2025-09', sheet(recorded(other)))).toBeUndefined();
    expect(repricingAfter(rateChange, after, '2025-09', sheet(...lessons, locked))).toBeUndefined();
    expect(repricingAfter(rateChange, undefined, '2025-09', sheet(...lessons))).toBeUndefined();
  });

  it('the first day whose terms the events change', () => {
    expect(termsChangedFrom([rateChange])).toBe('2025-09-01');
    const moved = (periodStart: string, startDate: string): EngagementEvent => ({
      type: 'EngagementPeriodCorrected',
      data: { engagementId: 'e1', periodStart, startDate, ratePence: 3000, ...terms },
    });
    expect(termsChangedFrom([moved('2025-09-15', '2025-10-01')])).toBe('2025-09-15');
    expect(termsChangedFrom([moved('2025-09-15', '2025-09-03'), rateChange])).toBe('2025-09-01');
    expect(
      termsChangedFrom([{ type: 'EngagementEnded', data: { engagementId: 'e1', endDate: '2025-12-31' } }]),
    ).toBeUndefined();
  });

  it('an invoice waits for a month whose lessons its engagements now price otherwise', () => {
    expect(awaitsRepricing(sheet(...lessons), [after])).toBe(true);
    expect(awaitsRepricing(sheet(...lessons), [before])).toBe(false);
    expect(awaitsRepricing(sheet(...lessons, locked), [after])).toBe(false);
  });
});

describe('the months a change of terms reprices in', () => {
  it('from its own month to the month after today, with later months that hold lessons', () => {
    expect(monthsToReprice('2025-09-01', '2025-11-26', [])).toEqual(['2025-09', '2025-10', '2025-11', '2025-12']);
    expect(monthsToReprice('2025-11-30', '2025-12-02', ['2025-11', '2026-03'])).toEqual([
      '2025-11',
      '2025-12',
      '2026-01',
      '2026-03',
    ]);
    // A change from a day ahead: its month, and any later month with lessons.
    expect(monthsToReprice('2026-02-01', '2025-11-26', ['2026-04'])).toEqual(['2026-02', '2026-04']);
    expect(monthAfter('2025-12')).toBe('2026-01');
  });
});

describe('a change that would reprice invoiced months', () => {
  it('is refused naming each month and its invoice, and the first date it could take effect', () => {
    const refusal = invoicedMonthsRefusal([
      { month: '2025-10', reference: 'JS0013' },
      { month: '2025-09', reference: 'JS0012' },
      { month: '2025-11', reference: null },
    ]);
    expect(refusal).toBeInstanceOf(DomainError);
    expect(refusal.code).toBe('locked');
    expect(refusal.message).toBe(
      'This change would reprice lessons of September 2025 (invoice JS0012), October 2025 (invoice JS0013) and November 2025 (being invoiced), which are invoiced, and an invoice never changes. Make the change from 01 Dec 2025 or later, or first withdraw those invoices if not yet confirmed.',
    );
    expect(refusal.fields).toEqual({ startDate: 'Invoiced before 01 Dec 2025' });
    expect(invoicedMonthsRefusal([{ month: '2025-09', reference: 'JS0012' }]).message).toMatch(
      /^This change would reprice lessons of September 2025 \(invoice JS0012\), which is invoiced, .* withdraw that invoice/,
    );
  });
});
