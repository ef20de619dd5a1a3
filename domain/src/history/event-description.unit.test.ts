import { describe, expect, it } from 'vitest';
import { describeStream, typeInWords } from './event-description';

const started = {
  type: 'EngagementStarted',
  data: {
    engagementId: 'e1',
    tutorId: 't1',
    studentId: 's1',
    startDate: '2026-09-01',
    subjects: ['Maths'],
    ratePence: 4000,
    commissionBp: 2500,
    partnerBp: 1000,
  },
};
const lesson = {
  lessonId: 'l1',
  engagementId: 'e1',
  studentId: 's1',
  date: '2026-10-20',
  duration: 100,
  ratePence: 4500,
  amountPence: 4500,
  amountEdited: false,
  commissionBp: 2500,
  commissionPence: 1125,
  partnerBp: 1000,
  partnerCommissionPence: 113,
};

describe('an event in words', () => {
  it('says what a rate change changed, from the period in force before it', () => {
    const words = describeStream([
      started,
      {
        type: 'EngagementRatesChanged',
        data: { engagementId: 'e1', from: '2026-10-15', ratePence: 4500, commissionBp: 2500, partnerBp: 1000 },
      },
    ]);
    expect(words).toEqual([
      'Engagement started on 01 Sep 2026: Rate £40.00, Commission 25%, Partner share 10%; subjects Maths',
      'Rate changed from £40.00 to £45.00 from 15 Oct 2026',
    ]);
  });

  it('says what a period correction changed', () => {
    const [, corrected] = describeStream([
      started,
      {
        type: 'EngagementPeriodCorrected',
        data: {
          engagementId: 'e1',
          periodStart: '2026-09-01',
          startDate: '2026-09-01',
          subjects: ['Maths'],
          ratePence: 4000,
          commissionBp: 2000,
          partnerBp: 1000,
        },
      },
    ]);
    expect(corrected).toBe('Period from 01 Sep 2026 corrected: Commission changed from 25% to 20%; subjects Maths');
  });

  it("says a lesson's old and new figures", () => {
    const words = describeStream([
      { type: 'LessonRecorded', data: { tutorId: 't1', month: '2026-10', lesson } },
      {
        type: 'LessonChanged',
        data: { tutorId: 't1', month: '2026-10', lesson: { ...lesson, duration: 150, amountPence: 6750 } },
      },
      {
        type: 'LessonsRepriced',
        data: {
          tutorId: 't1',
          month: '2026-10',
          engagementId: lesson.engagementId,
          from: '2026-10-01',
          lessons: [{ ...lesson, duration: 150, ratePence: 5000, amountPence: 7500 }],
        },
      },
      { type: 'LessonRemoved', data: { tutorId: 't1', month: '2026-10', lessonId: 'l1' } },
    ]);
    expect(words).toEqual([
      'Lesson on 20 Oct 2026 recorded: 1.00 h at £45.00, £45.00',
      'Lesson on 20 Oct 2026 changed: duration from 1.00 h to 1.50 h, amount from £45.00 to £67.50',
      "1 lesson repriced by the engagement's terms from 01 Oct 2026: 20 Oct 2026: rate from £45.00 to £50.00, amount from £67.50 to £75.00",
      'Lesson on 20 Oct 2026 removed',
    ]);
  });

  it('shows a withdrawn invoice as void, and its month unlocked', () => {
    const key = { invoiceId: 't1_2026-10', tutorId: 't1', month: '2026-10' };
    expect(
      describeStream([
        { type: 'InvoiceWithdrawn', data: { ...key, reference: 'JS0012' } },
        { type: 'TimesheetMonthUnlocked', data: key },
      ]),
    ).toEqual([
      'Invoice JS0012 withdrawn before confirmation: the reference is void and never used again',
      'Month 2026-10 unlocked: its invoice was withdrawn',
    ]);
  });

  it('names an event it has no words for by its type, and survives a payload it cannot read', () => {
    expect(describeStream([{ type: 'ConsultationBooked', data: { id: 'c1' } }])).toEqual(['Consultation booked']);
    expect(describeStream([{ type: 'LessonChanged', data: {} }])).toEqual(['Lesson changed']);
    expect(typeInWords('FamilyInvoiceIssued')).toBe('Family invoice issued');
  });
});
