import {
  type EngagementBody,
  type EngagementEvent,
  type EngagementStart,
  type EngagementTerms,
  engagementBody,
  type LessonEvent,
  type RepricedLessons,
} from '@agency/contracts';
import {
  engagement,
  fold,
  invoice,
  percentToBasisPoints,
  timesheet,
  todayIn,
  toHours,
  toPence,
  toPounds,
  tutor,
} from '@agency/domain';
import { HttpError, notFound } from '@agency/platform';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { LESSON_REPRICING, TERMS_CHANGES } from '../lessons/lesson-repricing-reactor';
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
export async function engagementRoutes(
  app: FastifyInstance,
  { deps, db, timeZone }: { deps: CommandDependencies; db: pg.Pool; timeZone: string },
) {
  const { engagementDecider, engagementStream } = engagement;
  const { timesheetDecider, timesheetStream } = timesheet;
  const lookups = readModelLookups(db);

  /** The months a change of terms from `from` reprices in, as of `today` (timesheet.monthsToReprice). */
  const monthsFor = async (summary: engagement.EngagementSummary, from: string, today: string) =>
    timesheet.monthsToReprice(
      from,
      today,
      await lookups.lessonMonthsOf(summary.tutorId, summary.engagementId, from.slice(0, 7)),
    );

  /**
   * A change of terms from `from` reprices the engagement's lessons from then on; one that would
   * reprice lessons of an invoiced month is refused, naming the invoices, before anything is
   * written. Whether a month is invoiced is read from its own timesheet stream (its lock), never
   * from a read model that may lag. `after`: the engagement as the change would leave it.
   */
  async function refuseRepricingInvoiced(after: engagement.EngagementState, from: string, context: CommandContext) {
    const summary = engagement.summaryOf(after);
    if (!summary) return;
    const { tutorId } = summary;
    const months = await monthsFor(summary, from, todayIn(timeZone, context.now));
    const sheets = await Promise.all(
      months.map(async (month) => ({
        month,
        sheet: await context.load(timesheetStream(tutorId, month), timesheetDecider),
      })),
    );
    // Pricing every lesson again here also refuses a rate that would price one beyond the limits.
    const invoiced = sheets.filter(
      ({ sheet }) => timesheet.lessonsToReprice(sheet, summary, from).length > 0 && sheet.status === 'locked',
    );
    if (invoiced.length === 0) return;
    const named = await Promise.all(
      invoiced.map(async ({ month }) => {
        const state = await context.load(invoice.invoiceStream(tutorId, month), invoice.invoiceDecider);
        return { month, reference: state.status === 'none' ? null : state.invoice.reference };
      }),
    );
    throw timesheet.invoicedMonthsRefusal(named);
  }

  /**
   * What this command's change of terms repriced, for its answer: the lessons of every
   * `LessonsRepriced` that followed from its own events (their cause), waited for boundedly.
   * Read from the events, so a retry of the command answers the same list.
   */
  async function repricedBy(
    stream: string,
    { commandId, settle }: CommandContext,
  ): Promise<RepricedLessons | undefined> {
    const history = await deps.store.readStream(stream);
    const own = history.filter(
      (event) => event.metadata.commandId === commandId && (TERMS_CHANGES as readonly string[]).includes(event.type),
    );
    const from = engagement.termsChangedFrom(own as unknown as EngagementEvent[]);
    const first = own[0];
    if (!from || !first) return undefined;
    const complete = await settle([LESSON_REPRICING]);
    const summary = engagement.summaryOf(
      fold(
        engagementDecider,
        history.map((event) => ({ type: event.type, data: event.data }) as EngagementEvent),
      ),
    );
    if (!summary) return undefined;
    // The months the reactor reprices in: as of the day the change was recorded, as it does.
    const months = await monthsFor(summary, from, todayIn(timeZone, new Date(first.metadata.recordedAt)));
    const causes = new Set(own.map((event) => event.id));
    const lessons: RepricedLessons['lessons'] = [];
    for (const month of months) {
      let sheet = timesheetDecider.initialState();
      for (const recorded of await deps.store.readStream(timesheetStream(summary.tutorId, month))) {
        const event = { type: recorded.type, data: recorded.data } as LessonEvent;
        if (event.type === 'LessonsRepriced' && causes.has(recorded.metadata.causationId)) {
          for (const lesson of event.data.lessons) {
            const previous = sheet.lessons.get(lesson.lessonId);
            lessons.push({
              id: lesson.lessonId,
              date: lesson.date,
              duration: toHours(lesson.duration),
              previousAmount: toPounds(previous?.amountPence ?? lesson.amountPence),
              amount: toPounds(lesson.amountPence),
            });
          }
        }
        sheet = timesheetDecider.evolve(sheet, event);
      }
    }
    return { from, complete, lessons };
  }

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

  async function change(id: string, body: EngagementBody, context: CommandContext) {
    const { run, load, settle, now, commandId } = context;
    if (body.change === 'start') throw missing('id', 'An engagement with an id has already started');
    const stream = engagementStream(id);
    let state = await load(stream, engagementDecider);
    engagement.checkChangeOf(state, body);
    const commands = changesOf(body, state).flatMap((next) => (next === 'start' ? [] : [commandFor(next, body)]));
    // A retry of a change that was recorded goes on to complete it, never decides it again.
    const recorded = (await deps.store.readStream(stream)).some((event) => event.metadata.commandId === commandId);
    if (!recorded) {
      // Decided whole before the first write (pure), so no part of it is refused after another was
      // recorded; a change of terms is checked against the invoiced months it would reprice.
      const decided: EngagementEvent[] = [];
      let after: engagement.EngagementState = state;
      for (const command of commands) {
        const events = engagementDecider.decide(command, after, now);
        decided.push(...events);
        after = events.reduce(engagementDecider.evolve, after);
      }
      const from = engagement.termsChangedFrom(decided);
      if (from) await refuseRepricingInvoiced(after, from, context);
    }
    for (const command of commands) state = await run(stream, engagementDecider, command);
    // The engagement-end reactor takes it off the roster: waited for (boundedly) so that, once
    // answered, the student may start afresh. When it is late, the next start or termination
    // for this tutor settles the roster from the store anyway.
    if (state.status === 'ended') await settle([ENGAGEMENT_END]);
    const summary = engagement.summaryOf(state);
    if (!summary) throw notFound('There is no such engagement.');
    const repriced = await repricedBy(stream, context);
    return { id: summary.engagementId, tutorId: summary.tutorId, ...(repriced ? { repriced } : {}) };
  }

  commandRoute(app, deps, {
    url: '/api/tutors/engagement',
    roles: ['admin'],
    body: engagementBody,
    handle: async ({ body }, context) => {
      if (!body.id) return { engagement: await start(body, context) };
      const { repriced, ...changed } = await change(body.id, body, context);
      // What a change of terms repriced, beside the engagement (whose view the query side adds).
      return { engagement: changed, ...(repriced ? { repriced } : {}) };
    },
    // The engagement as its page shows it, built once, on the query side.
    view: (_, { engagement: saved }, views) => views.engagement({ tutorId: saved.tutorId, engagementId: saved.id }),
  });
}
