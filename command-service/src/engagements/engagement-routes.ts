import { type EngagementBody, type EngagementStart, type EngagementTerms, engagementBody } from '@agency/contracts';
import { engagement, percentToBasisPoints, toPence, tutor } from '@agency/domain';
import { HttpError, notFound } from '@agency/platform';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import type { CommandContext, CommandDependencies } from '../pipeline/command-pipeline';
import { commandRoute } from '../pipeline/command-pipeline';
import { racePoint } from '../race-points';
import { readModelLookups } from '../read-model/lookups';
import { ENGAGEMENT_END } from './engagement-end-reactor';
import { ENGAGEMENT_START } from './engagement-start-reactor';
import { settledTutor } from './roster';

type Change = NonNullable<EngagementBody['change']>;
type Ongoing = Exclude<engagement.EngagementState, { status: 'none' }>;

const termsOf = (body: EngagementBody): EngagementTerms => ({
  ratePence: toPence(body.rate, 'The rate'),
  commissionBp: percentToBasisPoints(body.commissionPct, 'Commission %'),
  partnerBp: percentToBasisPoints(body.partnerPct, 'Partner %'),
});

const missing = (field: string, message: string) => new HttpError(400, 'invalid_input', message, { [field]: message });

/**
 * Without `change`, the body says what it is: `periodStart` names a period to correct, an
 * `endDate` ends the engagement, and otherwise the engagement says what changes from `startDate`.
 */
function changesOf(body: EngagementBody, state: Ongoing): Change[] {
  if (body.change) return [body.change];
  if (body.periodStart) return ['correction'];
  if (body.endDate) return ['termination'];
  return engagement.changesFrom(state, { from: body.startDate, terms: termsOf(body), subjects: body.subjects });
}

function commandFor(change: Exclude<Change, 'start'>, body: EngagementBody): engagement.EngagementCommand {
  switch (change) {
    case 'rates':
      return { type: 'ChangeRates', from: body.startDate, ...termsOf(body) };
    case 'subjects':
      return { type: 'ChangeSubjects', from: body.startDate, subjects: body.subjects };
    case 'correction':
      if (!body.periodStart) throw missing('periodStart', 'Choose the history period to correct');
      return {
        type: 'CorrectPeriod',
        periodStart: body.periodStart,
        startDate: body.startDate,
        subjects: body.subjects,
        ...termsOf(body),
      };
    case 'termination':
      if (!body.endDate) throw missing('endDate', 'End date is required');
      return { type: 'TerminateEngagement', endDate: body.endDate };
    default: {
      const _never: never = change;
      return _never;
    }
  }
}

/**
 * `POST /api/tutors/engagement` (admin): start an engagement, change its rates or subjects from
 * a date, correct a history period, or end it. The rules that span the tutor and their
 * engagements (one ongoing engagement per student, none for an inactive tutor, no termination
 * while a student is current) are decided on the tutor's stream. Each command writes one stream:
 * a start puts the engagement on the tutor's roster (with what it starts with) and a reactor
 * records it in its own stream; a change or an end is written to the engagement's stream, and a
 * reactor takes an ended one off the roster.
 */
export async function engagementRoutes(app: FastifyInstance, { deps, db }: { deps: CommandDependencies; db: pg.Pool }) {
  const { engagementDecider, engagementStream } = engagement;
  const lookups = readModelLookups(db);

  async function start(body: EngagementBody, context: CommandContext) {
    const { run, now, newId, load, settle } = context;
    if (body.change && body.change !== 'start')
      throw missing('id', 'Choose the engagement to change: the id is required');
    if (body.endDate) throw missing('endDate', 'A new engagement cannot have an end date; terminate it once started');
    const studentId = body.studentId!;
    const tutorState = await settledTutor(deps, body.tutorId, context);
    // Refused before the student is looked up and before anything is written.
    tutor.checkMayStartEngagement(tutorState);
    if (!(await lookups.studentExists(studentId))) throw notFound('There is no such student.');
    const engagementId = newId();
    const begins: EngagementStart = { startDate: body.startDate, subjects: body.subjects, ...termsOf(body) };
    // The engagement's own rules first (pure), so nothing goes on the roster that the reactor
    // could not record. This very start does not count as another ongoing engagement: a retry
    // after its roster write finds it there, and completes instead of being refused.
    engagementDecider.decide(
      {
        type: 'StartEngagement',
        engagementId,
        tutorId: body.tutorId,
        studentId,
        ...begins,
        otherOngoingWithSameStudent: tutor.hasOtherOngoingWith(tutorState, studentId, engagementId),
      },
      engagementDecider.initialState(),
      now,
    );
    await racePoint('engagement.start');
    // The decisive and only write: refused (409) if the tutor was terminated or took this student
    // meanwhile. A retry (same command id) finds it appended and goes on to the answer.
    await run(tutor.tutorStream(body.tutorId), tutor.tutorDecider, {
      type: 'StartTutorEngagement',
      engagementId,
      studentId,
      engagement: begins,
    });
    // The engagement-start reactor records it in its own stream: waited for (boundedly), then
    // loaded so that the answer's view waits for it on the read side too. When the reactor is
    // late, the start stands (it is under way) and the answer names the engagement.
    await settle([ENGAGEMENT_START]);
    await load(engagementStream(engagementId), engagementDecider);
    return { id: engagementId, tutorId: body.tutorId };
  }

  async function change(id: string, body: EngagementBody, { run, load, settle }: CommandContext) {
    if (body.change === 'start') throw missing('id', 'An engagement with an id has already started');
    const stream = engagementStream(id);
    let state = await load(stream, engagementDecider);
    engagement.checkChangeOf(state, body);
    for (const next of changesOf(body, state)) {
      if (next === 'start') continue;
      state = await run(stream, engagementDecider, commandFor(next, body));
    }
    // The engagement-end reactor takes it off the roster: waited for (boundedly) so that, once
    // answered, the student may start afresh. When it is late, the next start or termination
    // for this tutor settles the roster from the store anyway.
    if (state.status === 'ended') await settle([ENGAGEMENT_END]);
    const summary = engagement.summaryOf(state);
    if (!summary) throw notFound('There is no such engagement.');
    return { id: summary.engagementId, tutorId: summary.tutorId };
  }

  commandRoute(app, deps, {
    url: '/api/tutors/engagement',
    roles: ['admin'],
    body: engagementBody,
    handle: async ({ body }, context) => ({
      engagement: body.id ? await change(body.id, body, context) : await start(body, context),
    }),
    // The engagement as its page shows it, built once, on the query side.
    view: (_, { engagement: saved }) => `/api/tutors/engagement/${saved.tutorId}/${saved.id}`,
  });
}
