import { randomUUID } from 'node:crypto';
import type { SessionUser } from '@agency/contracts';
import { engagement, tutor } from '@agency/domain';
import type { Position } from '@agency/platform';
import { type CommandContext, type CommandDependencies, createCommandContext } from '../pipeline/command-pipeline';

/**
 * The tutor's state with its roster brought up to date from the engagements' own streams (the
 * event store, never a read model): the tutor decider (`SettleRoster`) takes off an engagement
 * that has ended, or whose start never finished. The change is appended at the tutor stream's
 * expected revision, so a concurrent start or termination is still decided on that one stream.
 * It is its own command (settling is idempotent), so it never shifts the steps of the command
 * being run.
 *
 * Still needed now that reactors follow a start and an end: an end the engagement-end reactor has
 * not reached yet (or, from older code, one whose roster update was lost) is settled here, so a
 * new start or a termination never waits on it; and older starts recorded their engagement
 * themselves after the roster, so one that crashed in between is taken off as abandoned. Starts
 * that carry their terms on the roster are recorded by the engagement-start reactor and are
 * never abandoned (the decider knows them from the roster's own events).
 */
export async function settledTutor(deps: CommandDependencies, tutorId: string, context: CommandContext) {
  const stream = tutor.tutorStream(tutorId);
  const recorded = await deps.store.readStream(stream);
  const state = recorded.reduce(
    (folded, event) => tutor.tutorDecider.evolve(folded, { type: event.type, data: event.data } as never),
    tutor.tutorDecider.initialState(),
  );
  if (state.status === 'none' || Object.keys(state.engagements).length === 0) return state;
  const putOnRosterAt = new Map<string, string>();
  for (const event of recorded) {
    if (event.type === 'TutorEngagementStarted') {
      putOnRosterAt.set(String(event.data.engagementId), event.metadata.recordedAt);
    }
  }
  const entries = await Promise.all(
    Object.keys(state.engagements).map(async (engagementId): Promise<tutor.RosterEntryFacts> => {
      const own = await deps.store.readStream(engagement.engagementStream(engagementId));
      return {
        engagementId,
        ended: own.some((event) => event.type === 'EngagementEnded'),
        recorded: own.length > 0,
        putOnRosterAt: putOnRosterAt.get(engagementId) ?? null,
      };
    }),
  );
  // Decided at the time of the command being run, so its retry settles the same way.
  const settle = createCommandContext(deps, context.user, randomUUID(), context.commandId, context.now).context;
  return settle.run(stream, tutor.tutorDecider, { type: 'SettleRoster', entries });
}

/** Who the store's own upkeep is recorded as. */
const SYSTEM: SessionUser = { id: 'system', username: 'system', role: 'admin' };

/**
 * Engagements started before tutors kept a roster are put on their tutor's roster (and, when they
 * have ended, taken off it again), so the rules and invoicing count them too. Read from the event
 * store itself. Once per store: the command side's data migration 001_tutor_rosters
 * (docs/migrations.md), which may run again after a crash and then adds nothing twice. Answers
 * how many it put on.
 */
export async function putEarlierEngagementsOnRosters(deps: CommandDependencies) {
  // Every engagement ever started, ended or not: the roster's history is what invoicing reads
  // to know which months a tutor taught in, so ended ones go on (and come off) it too.
  const earlier = new Map<string, { tutorId: string; studentId: string; ended: boolean }>();
  let from: Position | undefined;
  for (;;) {
    const page = await deps.store.readAll({ from, limit: 1000 });
    if (page.length === 0) break;
    for (const event of page) {
      const data = event.data as { engagementId?: string; tutorId?: string; studentId?: string };
      if (event.type === 'EngagementStarted' && data.engagementId && data.tutorId && data.studentId) {
        earlier.set(data.engagementId, { tutorId: data.tutorId, studentId: data.studentId, ended: false });
      } else if (event.type === 'EngagementEnded' && data.engagementId) {
        const known = earlier.get(data.engagementId);
        if (known) known.ended = true;
      }
    }
    from = page.at(-1)!.position;
  }
  let added = 0;
  for (const [engagementId, { tutorId, studentId, ended }] of earlier) {
    const commandId = randomUUID();
    const { context } = createCommandContext(deps, SYSTEM, commandId, commandId);
    const stream = tutor.tutorStream(tutorId);
    const before = await context.load(stream, tutor.tutorDecider);
    if (before.status === 'none' || tutor.engagementsEverOf(before).includes(engagementId)) continue;
    // Decided by the tutor (once only), appended at the stream's revision (a concurrent change is decided again).
    await context.run(stream, tutor.tutorDecider, {
      type: 'PutEarlierEngagementOnRoster',
      engagementId,
      studentId,
      ended,
    });
    added += 1;
  }
  return added;
}
