import type { LessonDetails } from '@agency/contracts';
import { type Decider, fold, type invoice, moneyModel } from '@agency/domain';
import { comparePositions, type EventStore, type Position } from '@agency/platform';
import type { CommandContext } from '../pipeline/command-pipeline';

const engagementIdsOf = (lessons: readonly LessonDetails[]) => [
  ...new Set(lessons.map((lesson) => lesson.engagementId)),
];

/** The money-model streams of these lessons' engagements and the agency's, as they stand now (a command's reads). */
export async function modelStatesNow(
  load: CommandContext['load'],
  lessons: readonly LessonDetails[],
): Promise<invoice.ModelStates> {
  const agency = await load(moneyModel.agencyModelStream(), moneyModel.agencyModelDecider);
  const ids = engagementIdsOf(lessons);
  const states = await Promise.all(
    ids.map((id) => load(moneyModel.engagementModelStream(id), moneyModel.engagementModelDecider)),
  );
  return { agency, engagements: new Map(ids.map((id, i) => [id, states[i]!])) };
}

/**
 * The same streams as they stood at `position` (a reaction's trigger): a reaction that runs late,
 * after a later choice was recorded, decides as its trigger's command did.
 */
export async function modelStatesAsOf(
  store: EventStore,
  position: Position,
  lessons: readonly LessonDetails[],
): Promise<invoice.ModelStates> {
  const asOf = async <S>(streamId: string, decider: Pick<Decider<unknown, never, S>, 'initialState' | 'evolve'>) =>
    fold(
      decider,
      (await store.readStream(streamId))
        .filter((recorded) => comparePositions(recorded.position, position) <= 0)
        .map((recorded) => ({ type: recorded.type, data: recorded.data }) as never),
    );
  const agency = await asOf(moneyModel.agencyModelStream(), moneyModel.agencyModelDecider);
  const ids = engagementIdsOf(lessons);
  const states = await Promise.all(
    ids.map((id) => asOf(moneyModel.engagementModelStream(id), moneyModel.engagementModelDecider)),
  );
  return { agency, engagements: new Map(ids.map((id, i) => [id, states[i]!])) };
}
