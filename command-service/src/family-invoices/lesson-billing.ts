import { type ClientEvent, lessonBillingBody, type TutorEvent } from '@agency/contracts';
import { client, familyInvoice, lessonBilling, moneyModel, timesheet, todayIn, tutor } from '@agency/domain';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { type CommandContext, type CommandDependencies, commandRoute, derivedId } from '../pipeline/command-pipeline';
import type { Reactor } from '../reactors/reactor';
import type { FamilyInvoicing } from './family-invoicing';

export const LESSON_BILLING_REACTOR = 'lesson-billing';

/** A family's lessons invoice for a month: one id per family and month, however often or wherever billing runs. */
export const lessonInvoiceIdOf = (clientId: string, month: string) => derivedId('lesson-invoice', clientId, month);

/**
 * `POST /api/family-invoices/lesson-billing` (admins): bill the families for a month's lessons
 * (docs/money-models.md, "Family lesson invoices"). The request is recorded; the invoices follow
 * from it, issued by the `lesson-billing` reactor.
 */
export async function lessonBillingRoutes(
  app: FastifyInstance,
  { deps, timeZone }: { deps: CommandDependencies; timeZone: string },
) {
  commandRoute(app, deps, {
    url: '/api/family-invoices/lesson-billing',
    roles: ['admin'],
    body: lessonBillingBody,
    handle: async ({ body }, { run, user, now, newId, settle }) => {
      const requestId = newId();
      await run(lessonBilling.lessonBillingStream(), lessonBilling.lessonBillingDecider, {
        type: 'RequestLessonBilling',
        requestId,
        month: body.month,
        today: todayIn(timeZone, now),
        actor: { role: user.role, tutorId: user.tutorId },
      });
      // The invoices are the reactor's: answered once it issued them, or as under way.
      const issued = await settle([LESSON_BILLING_REACTOR]);
      return { month: body.month, requestId, underWay: !issued };
    },
  });
}

/** Children's names by id, from the family's own stream (sealed fields opened as it is read). */
const childNames = {
  initialState: (): Record<string, string> => ({}),
  evolve: (names: Record<string, string>, event: ClientEvent): Record<string, string> =>
    event.type === 'ChildAdded' || event.type === 'ChildDetailsChanged'
      ? { ...names, [event.data.child.id]: `${event.data.child.firstName} ${event.data.child.lastName}` }
      : names,
};

/** A tutor's name, from their own stream. */
const tutorName = {
  initialState: (): string => '',
  evolve: (name: string, event: TutorEvent): string =>
    event.type === 'TutorRegistered' || event.type === 'TutorDetailsChanged'
      ? `${event.data.contact.firstName} ${event.data.contact.lastName}`
      : name,
};

type Timesheet = { tutorId: string; month: string };
const keyOf = ({ tutorId, month }: Timesheet) => `${tutorId} ${month}`;

/**
 * The `lesson-billing` reactor: for each family with lessons to bill in the month asked for (or a
 * late change to bill since), one invoice under an id derived from the family and the month, its
 * number taken for that id (a re-run, a retry or a second instance issues it once under one number).
 * The read models only find candidates; what is billed comes from the streams: the timesheets, the
 * money models, the family's earlier lessons invoices (found by their derived ids).
 */
export function lessonBillingReactor({ db, invoicing }: { db: pg.Pool; invoicing: FamilyInvoicing }): Reactor {
  const { familyInvoiceDecider, familyInvoiceStream } = familyInvoice;
  return {
    name: LESSON_BILLING_REACTOR,
    handles: ['FamilyLessonBillingRequested'],
    async react(event, act) {
      const { month } = event.data as { month: string };
      const look = act('look');
      const requested = await look.load(lessonBilling.lessonBillingStream(), lessonBilling.lessonBillingDecider);
      // The months whose lessons are billed: the ones asked for up to this one.
      const months = [...requested.months, month].filter((m) => m <= month);
      // Candidates: each family's tutors' months holding its lessons, and the families billed before.
      const { rows } = await db.query<{ client_id: string; tutor_id: string; month: string }>(
        `select distinct c.client_id, l.tutor_id, l.month
           from read.lessons l join read.children c on c.id = l.student_id
          where l.month = any($1::text[])
         union
         select distinct client_id, tutor_id, to_char(lesson_date, 'YYYY-MM')
           from read.family_invoice_lessons where to_char(lesson_date, 'YYYY-MM') <= $2
         order by 1, 2, 3`,
        [months, month],
      );
      const families = new Map<string, Timesheet[]>();
      for (const row of rows) {
        const list = families.get(row.client_id) ?? [];
        list.push({ tutorId: row.tutor_id, month: row.month });
        families.set(row.client_id, list);
      }
      const agency = await look.load(moneyModel.agencyModelStream(), moneyModel.agencyModelDecider);
      for (const [clientId, candidates] of families) {
        const invoiceId = lessonInvoiceIdOf(clientId, month);
        if ((await look.load(familyInvoiceStream(invoiceId), familyInvoiceDecider)).status !== 'none') continue;
        const family = await look.load(client.clientStream(clientId), client.clientDecider);
        // An erased family is not billed: it cannot be addressed (docs/money-models.md).
        if (family.status !== 'registered' || family.erased) continue;
        await billFamily(look, act(invoiceId), {
          clientId,
          invoiceId,
          month,
          months,
          candidates,
          agency,
          childIds: family.childIds,
        });
      }
    },
  };

  async function billFamily(
    look: CommandContext,
    issueContext: CommandContext,
    input: {
      clientId: string;
      invoiceId: string;
      month: string;
      months: string[];
      candidates: Timesheet[];
      agency: moneyModel.AgencyModelState;
      childIds: ReadonlySet<string>;
    },
  ) {
    const { clientId, invoiceId, month, months, agency, childIds } = input;
    // What each lesson was billed so far: the family's other lessons invoices, issued and not credited.
    const earlier = [];
    for (const other of months) {
      if (other === month) continue;
      const state = await look.load(familyInvoiceStream(lessonInvoiceIdOf(clientId, other)), familyInvoiceDecider);
      if (state.status === 'issued' && !state.creditNote) earlier.push(state.invoice);
    }
    const billed = lessonBilling.billedSoFar(earlier);
    // Every timesheet that holds a lesson to bill or a lesson billed before (else it would read as removed).
    const timesheets = new Map(input.candidates.map((sheet) => [keyOf(sheet), sheet]));
    for (const { lesson } of billed.values()) {
      const sheet = { tutorId: lesson.tutorId, month: lessonBilling.monthOf(lesson.date) };
      timesheets.set(keyOf(sheet), sheet);
    }
    const engagements = new Map<string, moneyModel.EngagementModelState>();
    const lessons: lessonBilling.LessonNow[] = [];
    for (const { tutorId, month: sheetMonth } of timesheets.values()) {
      const state = await look.load(timesheet.timesheetStream(tutorId, sheetMonth), timesheet.timesheetDecider);
      for (const lesson of timesheet.lessonsOf(state)) {
        if (!childIds.has(lesson.studentId)) continue;
        let engagement = engagements.get(lesson.engagementId);
        if (!engagement) {
          engagement = await look.load(
            moneyModel.engagementModelStream(lesson.engagementId),
            moneyModel.engagementModelDecider,
          );
          engagements.set(lesson.engagementId, engagement);
        }
        lessons.push({ lesson, tutorId, terms: moneyModel.termsOn(agency, engagement, lesson.date) });
      }
    }
    const { lines, tutorBilled } = lessonBilling.lessonInvoiceLines(month, lessons, billed);
    // Nothing to bill, or less than nothing: carried forward to the next month's invoice.
    if (!lessonBilling.issuable(lines)) return;
    const children = await look.load(client.clientStream(clientId), childNames);
    const names: Record<string, string> = {};
    for (const line of lines) {
      if (!line.lesson) continue;
      const { studentId, tutorId } = line.lesson;
      names[studentId] = children[studentId] ?? '';
      names[tutorId] ??= await look.load(tutor.tutorStream(tutorId), tutorName);
    }
    await invoicing.issue(issueContext, {
      invoiceId,
      clientId,
      billedFor: { kind: 'lessons', id: month },
      lines,
      tutorBilled,
      names,
    });
  }
}
