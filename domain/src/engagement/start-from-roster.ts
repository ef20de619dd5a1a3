import type { TutorEvent } from '@agency/contracts';
import type { EngagementCommand, EngagementState } from './engagement';

type PutOnRoster = Extract<TutorEvent, { type: 'TutorEngagementStarted' }>;

/**
 * A reactor's rule: an engagement put on its tutor's roster with what it starts with is then
 * recorded in its own stream. The roster decided the rules that span the tutor's engagements and
 * the command checked the engagement's own rules before it wrote, so this start is never refused
 * (no other ongoing engagement counts against it: the roster is where that was decided).
 * Nothing to do for an entry that carries no start (the command that put it there recorded the
 * engagement itself, or it was recorded before tutors kept a roster), nor once it is recorded.
 */
export function startFromRoster(event: PutOnRoster, state: EngagementState): EngagementCommand | undefined {
  const { engagementId, tutorId, studentId, engagement } = event.data;
  if (!engagement || state.status !== 'none') return undefined;
  const { startDate, subjects, ratePence, commissionBp, partnerBp } = engagement;
  return {
    type: 'StartEngagement',
    engagementId,
    tutorId,
    studentId,
    startDate,
    subjects,
    ratePence,
    commissionBp,
    partnerBp,
    otherOngoingWithSameStudent: false,
  };
}
