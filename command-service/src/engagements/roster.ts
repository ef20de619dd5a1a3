import { randomUUID } from 'node:crypto';
import { engagement, tutor } from '@agency/domain';
import { type CommandContext, type CommandDependencies, createCommandContext } from '../pipeline/command-pipeline';

/**
 * A start puts the engagement on the tutor's roster (the decisive write) and then records it in
 * its own stream. A roster entry whose stream is still empty this long after is a start that
 * never finished (the process died in between and nobody retried): it is taken off as abandoned.
 */
export const UNFINISHED_START_MS = 10 * 60 * 1000;

/**
 * The tutor's state with its roster brought up to date from the engagements' own streams (the
 * event store, never a read model): an engagement that has ended, or whose start never
 * finished, is taken off the roster. Each change is appended at the tutor stream's expected
 * revision, so a concurrent start or termination is still decided on that one stream. The
 * changes are their own command (they are idempotent), so they never shift the steps of the
 * command being run.
 */
export async function settledTutor(deps: CommandDependencies, tutorId: string, context: CommandContext) {
  const stream = tutor.tutorStream(tutorId);
  const recorded = await deps.store.readStream(stream);
  let state = recorded.reduce(
    (folded, event) => tutor.tutorDecider.evolve(folded, { type: event.type, data: event.data } as never),
    tutor.tutorDecider.initialState(),
  );
  if (state.status === 'none' || Object.keys(state.engagements).length === 0) return state;
  const startedAt = new Map<string, number>();
  for (const event of recorded) {
    if (event.type === 'TutorEngagementStarted') {
      startedAt.set(String(event.data.engagementId), Date.parse(event.metadata.recordedAt));
    }
  }
  const settle = createCommandContext(deps, context.user, randomUUID(), context.commandId).context;
  for (const engagementId of Object.keys(state.engagements)) {
    const own = await deps.store.readStream(engagement.engagementStream(engagementId));
    if (own.some((event) => event.type === 'EngagementEnded')) {
      state = await settle.run(stream, tutor.tutorDecider, { type: 'EndTutorEngagement', engagementId });
    } else if (own.length === 0 && context.now.getTime() - (startedAt.get(engagementId) ?? 0) > UNFINISHED_START_MS) {
      state = await settle.run(stream, tutor.tutorDecider, {
        type: 'EndTutorEngagement',
        engagementId,
        abandoned: true,
      });
    }
  }
  return state;
}
