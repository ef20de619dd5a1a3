import type { EngagementEvent } from '@agency/contracts';
import { engagement, tutor } from '@agency/domain';
import type { Reactor } from '../reactors/reactor';

export const ENGAGEMENT_END = 'engagement-end';

/**
 * An engagement ends in its own stream (one command, one stream); this takes it off its tutor's
 * roster, so the student may start afresh and the tutor may be terminated. Keyed by the
 * engagement: a re-run finds it off the roster already and adds nothing.
 */
export const engagementEndReactor: Reactor = {
  name: ENGAGEMENT_END,
  handles: ['EngagementEnded'],
  async react(event, act) {
    const ended = { type: event.type, data: event.data } as Extract<EngagementEvent, { type: 'EngagementEnded' }>;
    const step = act(ended.data.engagementId);
    // The event names only the engagement: its stream says whose roster it is on.
    const own = await step.load(engagement.engagementStream(ended.data.engagementId), engagement.engagementDecider);
    if (own.status === 'none') return;
    const stream = tutor.tutorStream(own.tutorId);
    const roster = await step.load(stream, tutor.tutorDecider);
    const command = tutor.offRosterAtEnd(ended, roster);
    if (command) await step.run(stream, tutor.tutorDecider, command);
  },
};
