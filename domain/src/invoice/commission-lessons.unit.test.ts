import type { LessonDetails } from '@agency/contracts';
import { describe, expect, it } from 'vitest';
import type { AgencyChoice, EngagementChoice } from '../money-model/money-model';
import { commissionLessons } from './commission-lessons';
import { invoiceSummary } from './invoice';

const lesson = (lessonId: string, engagementId: string, date: string, amountPence: number): LessonDetails => ({
  lessonId,
  engagementId,
  studentId: 's1',
  date,
  duration: 100,
  ratePence: amountPence,
  amountPence,
  amountEdited: false,
  commissionBp: 2500,
  commissionPence: Math.round(amountPence / 4),
  partnerBp: 1000,
  partnerCommissionPence: Math.round(amountPence / 40),
});
const agencyFrom = (from: string, model: AgencyChoice['model']): AgencyChoice => ({
  model,
  from,
  vatRateBp: 0,
  payAfterFamilyPays: false,
});
const models = (agency: AgencyChoice[], own: Record<string, EngagementChoice[]> = {}) => ({
  agency: { choices: agency },
  engagements: new Map(Object.entries(own).map(([id, choices]) => [id, { choices }])),
});

describe("the tutor's commission invoice bills only the lessons under tutor-pays-commission on their date", () => {
  const month = [lesson('a', 'e1', '2026-03-31', 4000), lesson('b', 'e1', '2026-04-01', 4000)];

  it('bills every lesson while nothing was chosen (the spec, unchanged)', () => {
    expect(commissionLessons(month, models([]))).toEqual(month);
  });

  it("leaves off a lesson on or after the agency's change, keeps the one before", () => {
    const billed = commissionLessons(month, models([agencyFrom('2026-04-01', 'agency-sells-tuition')]));
    expect(billed.map((kept) => kept.lessonId)).toEqual(['a']);
  });

  it("an engagement's own model wins over the agency's, and null goes back to the agency's", () => {
    const agency = [agencyFrom('2026-03-01', 'introduction')];
    const own = {
      e1: [
        { from: '2026-03-01', model: 'tutor-pays-commission' as const },
        { from: '2026-04-01', model: null },
      ],
    };
    expect(commissionLessons(month, models(agency, own)).map((kept) => kept.lessonId)).toEqual(['a']);
    expect(commissionLessons(month, models(agency))).toEqual([]);
  });

  it('totals only what is billed, to the penny', () => {
    const lessons = [lesson('a', 'e1', '2026-04-02', 4438), lesson('b', 'e2', '2026-04-03', 2663)];
    const billed = commissionLessons(
      lessons,
      models([agencyFrom('2026-04-01', 'agency-sells-tuition')], {
        e2: [{ from: '2026-04-01', model: 'tutor-pays-commission' }],
      }),
    );
    expect(invoiceSummary(billed)).toMatchObject({ lessonCount: 1, earningsPence: 2663, commissionPence: 666 });
  });
});
