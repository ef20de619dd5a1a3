import { type EngagementStart, engagementBody, subjectOptions, type TutorEvent } from '@agency/contracts';
import { engagement, percentToBasisPoints, toPence, tutor } from '@agency/domain';
import type { EventStore } from '@agency/platform';
import type { CommandContext } from '../pipeline/command-pipeline';
import { type FoldedStream, foldStream } from '../pipeline/stream-states';
import { childIdOf, type FamilyRecord, readFamily } from './family-rows';
import {
  dateCell,
  type ImportRow,
  idForKey,
  parsedWith,
  percentCell,
  planWrite,
  type RowPlan,
  RowRefused,
  sameAs,
} from './import-rows';

/** A tutor's stream as an engagement row needs it: the state, and what each engagement started with. */
export type TutorRoster = {
  folded: FoldedStream<tutor.TutorState>;
  starts: Map<string, { studentId: string; engagement?: EngagementStart }>;
};

async function readRoster(store: EventStore, tutorId: string): Promise<TutorRoster> {
  const events = await store.readStream(tutor.tutorStream(tutorId));
  const starts: TutorRoster['starts'] = new Map();
  for (const recorded of events) {
    const event = { type: recorded.type, data: recorded.data } as TutorEvent;
    if (event.type === 'TutorEngagementStarted') starts.set(event.data.engagementId, event.data);
  }
  return { folded: foldStream(tutor.tutorDecider, events), starts };
}

/**
 * What one engagement import reads more than once: families (whose children rows name), and, on a
 * dry run, tutors' rosters as the rows planned before would leave them.
 */
export type EngagementReads = {
  families: Map<string, FamilyRecord>;
  rosters: Map<string, TutorRoster>;
};

/** The file's column for each path of the engagement form's body (and of the deciders' refusals). */
export const ENGAGEMENT_COLUMNS: Record<string, string> = {
  tutorId: 'tutor_reference',
  studentId: 'child',
  rate: 'rate',
  commissionPct: 'commission',
  partnerPct: 'partner_share',
  startDate: 'start_date',
  subjects: 'subjects',
};

/** `Maths, physics` (or `;`, `|`, `/` between them) as the subject list spells them. */
function subjectsOf(cell: string): string[] {
  const byName = new Map(subjectOptions.map((name) => [name.toLowerCase(), name]));
  const names = cell
    .split(/[,;|/]/)
    .map((name) => name.trim())
    .filter((name) => name.length > 0)
    .map((name) => byName.get(name.toLowerCase()) ?? name);
  // A subject a spreadsheet lists twice (`Maths, maths`) is one subject, not one too many.
  return [...new Set(names)];
}

/** The child a row names: by its number in the family's file (`1`), or by first (or full) name. */
function studentOf(row: ImportRow, clientId: string, family: FamilyRecord): string {
  const named = row.cell('child');
  if (!named) throw new RowRefused('Child is required', { child: 'Child is required' });
  if (/^\d+$/.test(named)) {
    const id = childIdOf(clientId, Number(named));
    if (family.children.has(id)) return id;
  }
  const wanted = named.toLowerCase().replace(/\s+/g, ' ');
  const matches = [...family.children.values()].filter(
    (child) =>
      child.firstName.toLowerCase() === wanted || `${child.firstName} ${child.lastName}`.toLowerCase() === wanted,
  );
  if (matches.length === 1) return (matches[0] as { id: string }).id;
  const message =
    matches.length > 1
      ? `The family has more than one child called ${named}: name the child by full name or number`
      : `The family has no child ${named}`;
  throw new RowRefused(message, { child: message });
}

/**
 * An engagement row: started on the tutor's roster (the rules that span a tutor and their
 * engagements are decided there) with its rate, commission, partner share, start date and
 * subjects; the engagement-start reactor records it in its own stream. A known engagement whose
 * row says the same is unchanged; one whose row says otherwise is refused: a change of terms takes
 * the date it applies from, and is made on the engagement's page (docs/import.md).
 */
export async function planEngagement(
  row: ImportRow,
  key: string,
  {
    store,
    now,
    reads,
    dryRun,
    settleRoster,
  }: {
    store: EventStore;
    now: Date;
    reads: EngagementReads;
    dryRun: boolean;
    /** Brings the tutor's roster up to date from the engagements' streams, as a start through the route does. */
    settleRoster: (tutorId: string, context: CommandContext) => Promise<unknown>;
  },
): Promise<RowPlan> {
  const engagementId = idForKey('engagements', key);
  const tutorKey = row.cell('tutor_reference');
  const familyKey = row.cell('family_reference');
  const fields: Record<string, string> = {};
  if (!tutorKey) fields.tutor_reference = 'Tutor reference is required';
  if (!familyKey) fields.family_reference = 'Family reference is required';
  if (Object.keys(fields).length > 0) throw new RowRefused(Object.values(fields).join('; '), fields);
  const tutorId = idForKey('tutors', tutorKey);
  const clientId = idForKey('families', familyKey);
  let family = reads.families.get(clientId);
  if (!family) {
    family = await readFamily(store, clientId);
    reads.families.set(clientId, family);
  }
  if (family.folded.state.status === 'none') {
    const message = `There is no family with the reference ${familyKey}: import the families first`;
    throw new RowRefused(message, { family_reference: message });
  }
  // Nothing is recorded for an erased family: its children are no one's students any more.
  if (family.folded.state.erased) {
    const message = `The family ${familyKey} was erased: nothing can be recorded for it`;
    throw new RowRefused(message, { family_reference: message });
  }
  const studentId = studentOf(row, clientId, family);
  const roster = reads.rosters.get(tutorId) ?? (await readRoster(store, tutorId));
  if (roster.folded.state.status === 'none') {
    const message = `There is no tutor with the reference ${tutorKey}: import the tutors first`;
    throw new RowRefused(message, { tutor_reference: message });
  }
  if (roster.folded.state.erased) {
    const message = `The tutor ${tutorKey} was erased: nothing can be recorded for them`;
    throw new RowRefused(message, { tutor_reference: message });
  }
  const body = parsedWith(
    engagementBody,
    {
      tutorId,
      studentId,
      rate: row.cell('rate'),
      commissionPct: percentCell(row, 'commission'),
      partnerPct: percentCell(row, 'partner_share'),
      startDate: dateCell(row, 'start_date'),
      subjects: subjectsOf(row.cell('subjects')),
    },
    ENGAGEMENT_COLUMNS,
  );
  const begins: EngagementStart = {
    startDate: body.startDate,
    subjects: body.subjects,
    ratePence: toPence(body.rate, 'The rate'),
    commissionBp: percentToBasisPoints(body.commissionPct, 'Commission %'),
    partnerBp: percentToBasisPoints(body.partnerPct, 'Partner %'),
  };
  const started = roster.starts.get(engagementId);
  if (started || (await store.readStream(engagement.engagementStream(engagementId))).length > 0) {
    if (started && started.studentId === studentId && sameAs(started.engagement, begins))
      return { outcome: 'unchanged', id: engagementId };
    throw new RowRefused(
      'This engagement was imported before with another tutor, child or terms: change it on its page, from the date the change applies.',
    );
  }
  tutor.checkMayStartEngagement(roster.folded.state);
  // The engagement's own rules first, as the route decides them before the roster's.
  engagement.engagementDecider.decide(
    {
      type: 'StartEngagement',
      engagementId,
      tutorId,
      studentId,
      ...begins,
      otherOngoingWithSameStudent: tutor.hasOtherOngoingWith(roster.folded.state, studentId, engagementId),
    },
    engagement.engagementDecider.initialState(),
    now,
  );
  const command: tutor.TutorCommand = { type: 'StartTutorEngagement', engagementId, studentId, engagement: begins };
  const { events, ...write } = planWrite(tutor.tutorDecider, roster.folded, [command], tutor.tutorStream(tutorId), now);
  if (dryRun) {
    // The next rows of a dry run see this tutor as this row would leave them.
    reads.rosters.set(tutorId, {
      // Only a dry run's later rows read this: never a write's basis.
      folded: {
        ...roster.folded,
        state: events.reduce(tutor.tutorDecider.evolve, roster.folded.state),
        revision: roster.folded.revision + events.length,
      },
      starts: new Map([...roster.starts, [engagementId, { studentId, engagement: begins }]]),
    });
  } else reads.rosters.delete(tutorId);
  return {
    outcome: 'create',
    id: engagementId,
    write: { ...write, before: (context) => settleRoster(tutorId, context) },
  };
}
