import {
  type EngagementEvent,
  type InvoiceEvent,
  type InvoiceTraceAnswer,
  invoiceTraceAnswer,
  invoiceTraceParams,
  type LessonDetails,
  type LessonEvent,
  type RecordedEventView,
  readsEveryTutor,
} from '@agency/contracts';
import {
  basisPointsToFraction,
  commissionOf,
  engagement,
  formatPounds,
  invoice,
  lessonAmount,
  partnerCommissionOf,
  timesheet,
  toHours,
  toPounds,
} from '@agency/domain';
import { comparePositions, type EventStore, forbidden, notFound, type RecordedEvent } from '@agency/platform';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type pg from 'pg';
import { requireSignIn } from '../signed-in';
import { streamViews } from './recorded-events';

type Views = (
  stream: readonly RecordedEvent[],
  keep?: (event: RecordedEvent) => boolean,
) => Promise<RecordedEventView[]>;

const upTo = (events: readonly RecordedEvent[], last: RecordedEvent) =>
  events.filter((event) => comparePositions(event.position, last.position) <= 0);

/** The lessons of a timesheet as they stood after `events`. */
function lessonsAfter(events: readonly RecordedEvent[]): LessonDetails[] {
  const lessons = new Map<string, LessonDetails>();
  for (const event of events as unknown as (RecordedEvent & LessonEvent)[]) {
    if (event.type === 'LessonRecorded' || event.type === 'LessonChanged')
      lessons.set(event.data.lesson.lessonId, event.data.lesson);
    if (event.type === 'LessonsRepriced') for (const lesson of event.data.lessons) lessons.set(lesson.lessonId, lesson);
    if (event.type === 'LessonRemoved') lessons.delete(event.data.lessonId);
  }
  return [...lessons.values()].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
}

/** Whether the event writes this lesson (a repricing writes several at once). */
const concerns = (event: RecordedEvent, lessonId: string) => {
  const data = event.data as { lesson?: { lessonId?: string }; lessonId?: string; lessons?: { lessonId?: string }[] };
  if (data.lessons) return data.lessons.some((lesson) => lesson.lessonId === lessonId);
  return (data.lesson?.lessonId ?? data.lessonId) === lessonId;
};

/**
 * The engagement's periods as known after `events`, and for each period's start the event that
 * set its terms (a subjects change opens a period that keeps the terms of the one before it).
 */
function periodsWithSetters(events: readonly RecordedEvent[]) {
  let state = engagement.initialState();
  const setters = new Map<string, RecordedEvent>();
  for (const recorded of events) {
    const event = recorded as unknown as RecordedEvent & EngagementEvent;
    const before = engagement.periodsOf(state);
    if (event.type === 'EngagementStarted') setters.set(event.data.startDate, recorded);
    if (event.type === 'EngagementRatesChanged') setters.set(event.data.from, recorded);
    if (event.type === 'EngagementPeriodCorrected') {
      setters.delete(event.data.periodStart);
      setters.set(event.data.startDate, recorded);
    }
    if (event.type === 'EngagementSubjectsChanged' && !setters.has(event.data.from)) {
      const inForce = engagement.periodInForce(before, event.data.from) ?? before.at(-1);
      const setter = inForce && setters.get(inForce.startDate);
      if (setter) setters.set(event.data.from, setter);
    }
    state = engagement.evolve(state, event);
  }
  return { periods: engagement.periodsOf(state), setters };
}

/** What does not follow from the period in force: each difference in words. */
function lessonDifferences(lesson: LessonDetails, period: engagement.EngagementPeriod | undefined): string[] {
  if (!period) return [`No engagement period covers ${lesson.date}`];
  const found: string[] = [];
  const expect = (label: string, actual: number, wanted: number, format: (value: number) => string) => {
    if (actual !== wanted) found.push(`${label} is ${format(actual)}, the period says ${format(wanted)}`);
  };
  const percent = (bp: number) => `${bp / 100}%`;
  expect('Rate', lesson.ratePence, period.ratePence, formatPounds);
  expect('Commission rate', lesson.commissionBp, period.commissionBp, percent);
  expect('Partner rate', lesson.partnerBp, period.partnerBp, percent);
  if (!lesson.amountEdited)
    expect('Amount', lesson.amountPence, lessonAmount(lesson.duration, lesson.ratePence), formatPounds);
  expect('Commission', lesson.commissionPence, commissionOf(lesson.amountPence, lesson.commissionBp), formatPounds);
  expect(
    'Partner commission',
    lesson.partnerCommissionPence,
    partnerCommissionOf(lesson.commissionPence, lesson.partnerBp),
    formatPounds,
  );
  return found;
}

async function traceLesson(
  store: EventStore,
  views: Views,
  lesson: LessonDetails,
  sheet: readonly RecordedEvent[],
  engagements: Map<string, Promise<RecordedEvent[]>>,
) {
  const own = sheet.filter((event) => concerns(event, lesson.lessonId));
  const events = await views(sheet, (event) => own.includes(event));
  // The period that priced the lesson: the engagement as it was known when the lesson was last saved.
  let stream = engagements.get(lesson.engagementId);
  if (!stream) {
    stream = store.readStream(engagement.engagementStream(lesson.engagementId));
    engagements.set(lesson.engagementId, stream);
  }
  const engagementEvents = await stream;
  const lastSave = own.at(-1);
  const known = lastSave
    ? engagementEvents.filter((event) => comparePositions(event.position, lastSave.position) <= 0)
    : engagementEvents;
  const { periods, setters } = periodsWithSetters(known);
  const period = engagement.periodInForce(periods, lesson.date);
  const setter = period && setters.get(period.startDate);
  const [setBy] = setter ? await views(engagementEvents, (event) => event === setter) : [];
  return {
    lessonId: lesson.lessonId,
    engagementId: lesson.engagementId,
    studentId: lesson.studentId,
    date: lesson.date,
    duration: toHours(lesson.duration),
    rate: toPounds(lesson.ratePence),
    amount: toPounds(lesson.amountPence),
    amountEdited: lesson.amountEdited,
    commission: toPounds(lesson.commissionPence),
    commissionRate: basisPointsToFraction(lesson.commissionBp),
    partnerCommission: toPounds(lesson.partnerCommissionPence),
    events,
    period: period
      ? {
          startDate: period.startDate,
          endDate: period.endDate,
          rate: toPounds(period.ratePence),
          commissionRate: basisPointsToFraction(period.commissionBp),
          partnerRate: basisPointsToFraction(period.partnerBp),
          setBy: setBy ?? null,
        }
      : null,
    differences: lessonDifferences(lesson, period),
  };
}

/**
 * An invoice traced to its sources, read from the event store: each item → the lessons it sums
 * (as the timesheet stood when the invoice was generated) → each lesson's own events and the
 * engagement period that priced it, with the event that set that period. Every sum is redone
 * and each difference is named.
 */
export async function traceInvoice(
  db: pg.Pool,
  store: EventStore,
  timeZone: string,
  invoiceId: string,
): Promise<InvoiceTraceAnswer | undefined> {
  const found = await db.query<{ tutor_id: string; month: string }>(
    'select tutor_id, month from invoices where id = $1',
    [invoiceId],
  );
  const row = found.rows[0];
  if (!row) return undefined;
  const invoiceEvents = await store.readStream(invoice.invoiceStream(row.tutor_id, row.month));
  const generated = invoiceEvents.find((event) => {
    const typed = event as unknown as InvoiceEvent;
    return typed.type === 'InvoiceGenerated' && typed.data.invoiceId === invoiceId;
  });
  if (!generated) return undefined;
  const data = (generated as unknown as Extract<InvoiceEvent, { type: 'InvoiceGenerated' }>).data;
  const views: Views = (stream, keep) => streamViews(db, timeZone, stream, keep);
  const sheet = upTo(await store.readStream(timesheet.timesheetStream(row.tutor_id, row.month)), generated);
  const lessons = lessonsAfter(sheet);
  const engagements = new Map<string, Promise<RecordedEvent[]>>();
  const traced: Awaited<ReturnType<typeof traceLesson>>[] = [];
  for (const lesson of lessons) traced.push(await traceLesson(store, views, lesson, sheet, engagements));

  const differences: string[] = traced.flatMap((lesson) =>
    lesson.differences.map((text) => `Lesson on ${lesson.date}: ${text}`),
  );
  const sumPence = (list: readonly LessonDetails[], pick: (lesson: LessonDetails) => number) =>
    list.reduce((total, lesson) => total + pick(lesson), 0);
  const items = data.items.map((item) => {
    const own = lessons.filter((lesson) => lesson.commissionBp === item.commissionBp);
    const earnings = sumPence(own, (lesson) => lesson.amountPence);
    const commission = sumPence(own, (lesson) => lesson.commissionPence);
    const description = invoice.itemDescription(item);
    const matches = earnings === item.earningsPence && commission === item.commissionPence;
    if (!matches)
      differences.push(
        `${description}: its lessons add up to ${formatPounds(earnings)} and ${formatPounds(commission)} commission`,
      );
    return {
      description,
      commissionRate: basisPointsToFraction(item.commissionBp),
      earnings: toPounds(item.earningsPence),
      commission: toPounds(item.commissionPence),
      lessonsEarnings: toPounds(earnings),
      lessonsCommission: toPounds(commission),
      matches,
      lessons: traced.filter(
        (lesson) => lessons.find((l) => l.lessonId === lesson.lessonId)?.commissionBp === item.commissionBp,
      ),
    };
  });
  const itemRates = new Set(data.items.map((item) => item.commissionBp));
  for (const lesson of lessons.filter((each) => !itemRates.has(each.commissionBp)))
    differences.push(`Lesson on ${lesson.date} is in no item (commission ${lesson.commissionBp / 100}%)`);
  const itemsEarnings = data.items.reduce((total, item) => total + item.earningsPence, 0);
  const itemsCommission = data.items.reduce((total, item) => total + item.commissionPence, 0);
  if (itemsEarnings !== data.earningsPence)
    differences.push(
      `The items add up to ${formatPounds(itemsEarnings)}, the invoice says ${formatPounds(data.earningsPence)}`,
    );
  if (itemsCommission !== data.commissionPence)
    differences.push(
      `The items' commission adds up to ${formatPounds(itemsCommission)}, the invoice says ${formatPounds(data.commissionPence)}`,
    );
  const partner = sumPence(lessons, (lesson) => lesson.partnerCommissionPence);
  if (partner !== data.partnerCommissionPence)
    differences.push(
      `The lessons' partner commission adds up to ${formatPounds(partner)}, the invoice says ${formatPounds(data.partnerCommissionPence)}`,
    );
  if (lessons.length !== data.lessonCount)
    differences.push(`${lessons.length} lessons found, the invoice counts ${data.lessonCount}`);
  const [generatedBy] = await views(invoiceEvents, (event) => event === generated);
  return {
    invoice: {
      id: data.invoiceId,
      reference: data.reference,
      tutorId: data.tutorId,
      month: data.month,
      date: data.date,
      earnings: toPounds(data.earningsPence),
      commission: toPounds(data.commissionPence),
      partnerCommission: toPounds(data.partnerCommissionPence),
      lessonCount: data.lessonCount,
      generatedBy: generatedBy as RecordedEventView,
    },
    items,
    itemsEarnings: toPounds(itemsEarnings),
    itemsCommission: toPounds(itemsCommission),
    matches: differences.length === 0,
    differences,
  };
}

/** `GET /api/invoices/trace/{id}`: for the office (admins, partners, auditors). */
export async function invoiceTraceQueries(
  fastify: FastifyInstance,
  { db, store, timeZone }: { db: pg.Pool; store: EventStore; timeZone: string },
) {
  requireSignIn(fastify);
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.get(
    '/api/invoices/trace/:id',
    { schema: { params: invoiceTraceParams, response: { 200: invoiceTraceAnswer } } },
    async (request) => {
      if (!readsEveryTutor(request.signedIn.role)) throw forbidden('Invoice traces are for the office.');
      const trace = await traceInvoice(db, store, timeZone, request.params.id);
      if (!trace) throw notFound('There is no such invoice.');
      return trace;
    },
  );
}
