import type { TutorEvent } from '@agency/contracts';
import { engagement } from '@agency/domain';
import type { Reactor } from '../reactors/reactor';

export const ENGAGEMENT_START = 'engagement-start';

/**
 * A start is decided on the tutor's roster alone (one command, one stream); this records the
 * engagement in its own stream from the roster's event, which carries what it starts with. Keyed
 * by the engagement: a re-run after a crash finds its own append (or the engagement recorded) and
 * adds nothing.
 */
export const engagementStartReactor: Reactor = {
  name: ENGAGEMENT_START,
  handles: ['TutorEngagementStarted'],
  async react(event, act) {
    const putOnRoster = { type: event.type, data: event.data } as Extract<
      TutorEvent,
      { type: 'TutorEngagementStarted' }
    >;
    // An entry without a start (older ones) needs nothing: not even a read of its stream.
    if (!putOnRoster.data.engagement) return;
    const { engagementId } = putOnRoster.data;
    const step = act(engagementId);
    const stream = engagement.engagementStream(engagementId);
    const state = await step.load(stream, engagement.engagementDecider);
    const command = engagement.startFromRoster(putOnRoster, state);
    if (command) await step.run(stream, engagement.engagementDecider, command);
  },
};
