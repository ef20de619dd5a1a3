import { randomUUID } from 'node:crypto';
import type { LessonDetails } from '@agency/contracts';

/** A lesson of 1.5 hours at £30 an hour, 25% commission and 10% to a partner; `overrides` vary it. */
export const lesson = (overrides: Partial<LessonDetails> = {}): LessonDetails => ({
  lessonId: randomUUID(),
  engagementId: 'e-1',
  studentId: 's-1',
  date: '2026-03-02',
  duration: 150,
  ratePence: 3000,
  amountPence: 4500,
  amountEdited: false,
  commissionBp: 2500,
  commissionPence: 1125,
  partnerBp: 1000,
  partnerCommissionPence: 113,
  ...overrides,
});
