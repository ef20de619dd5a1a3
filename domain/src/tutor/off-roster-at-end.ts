import type { EngagementEvent } from '@agency/contracts';
import type { TutorCommand, TutorState } from './tutor';

type Ended = Extract<EngagementEvent, { type: 'EngagementEnded' }>;

/**
 * A reactor's rule: an engagement that ended in its own stream comes off its tutor's roster, so its
 * student is no longer current there. Nothing to do when it is not on the roster: taken off
 * already (a re-run, or the roster settled from the store first), or never put on it.
 */
export function offRosterAtEnd(event: Ended, roster: TutorState): TutorCommand | undefined {
  const { engagementId } = event.data;
  if (roster.status === 'none' || !roster.engagements[engagementId]) return undefined;
  return { type: 'EndTutorEngagement', engagementId };
}
