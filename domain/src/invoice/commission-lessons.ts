import type { LessonDetails } from '@agency/contracts';
import { type AgencyModelState, type EngagementModelState, termsOn } from '../money-model/money-model';

/** The money-model streams a month's lessons are judged by: the agency's and each engagement's own. */
export type ModelStates = { agency: AgencyModelState; engagements: ReadonlyMap<string, EngagementModelState> };

const NO_CHOICE: EngagementModelState = { choices: [] };

/**
 * The lessons the tutor's commission invoice bills (docs/money-models.md): only those whose model
 * on their own date is `tutor-pays-commission`. A lesson under another model is left off: the
 * agency bills the family for it (its own invoice) and the tutor owes the agency nothing for it, so
 * its amount on the tutor's invoice would read as earnings the agency takes a cut of.
 */
export const commissionLessons = (lessons: readonly LessonDetails[], models: ModelStates): LessonDetails[] =>
  lessons.filter(
    (lesson) =>
      termsOn(models.agency, models.engagements.get(lesson.engagementId) ?? NO_CHOICE, lesson.date).model ===
      'tutor-pays-commission',
  );
