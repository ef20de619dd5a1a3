import {
  type ClientEvent,
  type FamilyInvoiceLine,
  lessonBillingBody,
  lessonCreditBody,
  type TutorEvent,
} from '@agency/contracts';
import {
  client,
  familyInvoice,
  formatPounds,
  lessonBilling,
  moneyModel,
  timesheet,
  todayIn,
  toPounds,
  tutor,
} from '@agency/domain';
import { HttpError, notFound } from '@agency/platform';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { type CommandContext, type CommandDependencies, commandRoute, derivedId } from '../pipeline/command-pipeline';
import type { Reactor } from '../reactors/reactor';
import type { FamilyInvoicing } from './family-invoicing';

export const LESSON_BILLING_REACTOR = 'lesson-billing';

/**
 * A family's lessons invoice for a month: one id per family and month, however often or wherever
 * billing runs. A credit note asked for by the family (docs/money-models.md) credits it, and the
 * month's lessons are billed again at once on its next revision (`revision` 1, 2, …).
 */
export const lessonInvoiceIdOf = (clientId: string, month: string, revision = 0) =>
  revision === 0
    ? derivedId('lesson-invoice', clientId, month)
    : derivedId('lesson-invoice', clientId, month, revision);

/**
 * `POST /api/family-invoices/lesson-billing` (admins): bill the families for a month's lessons
 * (docs/money-models.md, "Family lesson invoices"). The request is recorded; the invoices follow
 * from it, issued by the `lesson-billing` reactor.
 */
export async function lessonBillingRoutes(
  app: FastifyInstance,
  { deps, timeZone, db }: { deps: CommandDependencies; timeZone: string; db: pg.Pool },
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

  const reader = lessonBillingReader({ db });
  const { familyInvoiceDecider, familyInvoiceStream } = familyInvoice;
  /**
   * `POST /api/family-invoices/lesson-credit` (admins): the family asks for what it is owed back now
   * (docs/money-models.md): when its lessons changed since they were billed come to less than
   * nothing, the request is recorded, and the `lesson-billing` reactor credits its latest lessons
   * invoice whole (a credit note) and bills that month again at once on its next revision, the
   * lessons at what they are now. Refused (409, nothing written) when nothing is owed back, or more
   * than that month billed again would hold.
   */
  commandRoute(app, deps, {
    url: '/api/family-invoices/lesson-credit',
    roles: ['admin'],
    body: lessonCreditBody,
    handle: async ({ body }, context) => {
      const { load, run, user, now, newId, settle } = context;
      const { clientId } = body;
      const requestId = newId();
      const stream = lessonBilling.lessonCreditStream(clientId);
      const family = await load(client.clientStream(clientId), client.clientDecider);
      if (family.status !== 'registered') throw notFound('There is no such family.');
      // A retry of a request already recorded answers with what followed from it, unchecked again.
      let request = (await load(stream, lessonBilling.lessonCreditDecider)).requests.get(requestId);
      if (!request) {
        if (family.erased)
          throw new HttpError(409, 'conflict', 'This family was erased: nothing is issued to it any more.');
        const requested = await load(lessonBilling.lessonBillingStream(), lessonBilling.lessonBillingDecider);
        const months = [...requested.months].sort();
        const { standing } = await reader.positionOf(context, clientId, months);
        const latest = standing[standing.length - 1];
        if (!latest) throw new HttpError(409, 'conflict', 'This family has no lessons invoice to credit.');
        // As the reactor will bill the month again: its lessons and earlier ones, never a later month's.
        const upTo = months.filter((m) => m <= latest.month);
        const sheets = (await reader.candidates(upTo, latest.month, clientId)).get(clientId) ?? [];
        const linesWithout = async (creditedId: string | null) => {
          const billed = lessonBilling.billedSoFar(
            standing.filter(({ id }) => id !== creditedId).map((s) => s.invoice),
          );
          const lessons = await reader.lessonsNow(context, family.childIds, sheets, billed);
          return lessonBilling.lessonInvoiceLines(latest.month, lessons, billed).lines;
        };
        const pending = await linesWithout(null);
        const owed = lessonBilling.totalsOf(pending).grossPence;
        if (pending.length === 0 || owed >= 0) {
          throw new HttpError(
            409,
            'conflict',
            `Nothing is owed back to this family: its lessons changed since they were billed come to ${formatPounds(owed)}, on its next invoice.`,
          );
        }
        // Checked before anything is written: the month billed again must not come to less than nothing.
        if (!lessonBilling.issuable(await linesWithout(latest.id))) {
          throw new HttpError(
            409,
            'conflict',
            'More is owed back than the family’s latest lessons invoice holds: it is carried forward to its next invoice.',
          );
        }
        const recorded = await run(stream, lessonBilling.lessonCreditDecider, {
          type: 'RequestLessonCredit',
          request: {
            requestId,
            clientId,
            month: latest.month,
            creditedId: latest.id,
            nextId: lessonInvoiceIdOf(clientId, latest.month, latest.revision + 1),
            date: todayIn(timeZone, now),
          },
          actor: { role: user.role, tutorId: user.tutorId },
        });
        request = recorded.requests.get(requestId);
        if (!request) throw new Error('a credit request that was just recorded is missing');
      }
      // The credit note and the month billed again are the reactor's: answered once it issued them.
      const done = await settle([LESSON_BILLING_REACTOR]);
      const credited = await load(familyInvoiceStream(request.creditedId), familyInvoiceDecider);
      const next = await load(familyInvoiceStream(request.nextId), familyInvoiceDecider);
      const note = credited.status === 'issued' ? credited.creditNote : null;
      return {
        creditNote: note
          ? { id: note.creditNoteId, reference: note.reference, total: toPounds(note.totalPence) }
          : null,
        invoice:
          next.status === 'issued'
            ? {
                id: next.invoice.invoiceId,
                reference: next.invoice.reference,
                total: toPounds(next.invoice.totalPence),
              }
            : null,
        underWay: !done,
      };
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
type Issued = familyInvoice.IssuedInvoice;

/**
 * The candidates' query: each family's tutors' months holding lessons the family may be billed for
 * (a model other than the spec's on the lesson's date, which the money-models read model knows long
 * before a month is billed: a choice never applies to a month before its own), and the families
 * billed before (a lesson removed since).
 */
const CANDIDATES = `select distinct c.client_id, l.tutor_id, l.month
   from read.lessons l join read.children c on c.id = l.student_id
  where l.month = any($1::text[]) and ($3::text is null or c.client_id = $3)
    and read.money_model_on(l.engagement_id, l.date) <> 'tutor-pays-commission'
 union
 select distinct client_id, tutor_id, to_char(lesson_date, 'YYYY-MM')
   from read.family_invoice_lessons
  where to_char(lesson_date, 'YYYY-MM') <= $2 and ($3::text is null or client_id = $3)
 order by 1, 2, 3`;

/**
 * What billing a family needs, from the streams: the lessons invoices of the months billed (each
 * month's revisions: a credited one is followed by the next), the family's lessons now with the
 * terms in force on each one's date, and the family itself.
 */
export function lessonBillingReader({ db }: { db: pg.Pool }) {
  const { familyInvoiceDecider, familyInvoiceStream } = familyInvoice;

  /** A month's revisions, up to the first not issued or not credited (the month's current invoice, or none). */
  async function revisionsOf(look: CommandContext, clientId: string, month: string) {
    const chain: { id: string; revision: number; state: familyInvoice.FamilyInvoiceState }[] = [];
    for (let revision = 0; ; revision++) {
      const id = lessonInvoiceIdOf(clientId, month, revision);
      const state = await look.load(familyInvoiceStream(id), familyInvoiceDecider);
      chain.push({ id, revision, state });
      if (state.status === 'none' || !state.creditNote) return chain;
    }
  }

  async function candidates(months: string[], upTo: string, clientId: string | null) {
    const { rows } = await db.query<{ client_id: string; tutor_id: string; month: string }>(CANDIDATES, [
      months,
      upTo,
      clientId,
    ]);
    const families = new Map<string, Timesheet[]>();
    for (const row of rows)
      families.set(row.client_id, [
        ...(families.get(row.client_id) ?? []),
        { tutorId: row.tutor_id, month: row.month },
      ]);
    return families;
  }

  /** The family's lessons now, in every timesheet that holds a lesson to bill or one billed before. */
  async function lessonsNow(
    look: CommandContext,
    childIds: ReadonlySet<string>,
    sheets: Timesheet[],
    billed: ReadonlyMap<string, lessonBilling.Billed>,
  ): Promise<lessonBilling.LessonNow[]> {
    const agency = await look.load(moneyModel.agencyModelStream(), moneyModel.agencyModelDecider);
    const timesheets = new Map(sheets.map((sheet) => [keyOf(sheet), sheet]));
    for (const { lesson } of billed.values()) {
      const sheet = { tutorId: lesson.tutorId, month: lessonBilling.monthOf(lesson.date) };
      timesheets.set(keyOf(sheet), sheet);
    }
    const engagements = new Map<string, moneyModel.EngagementModelState>();
    const lessons: lessonBilling.LessonNow[] = [];
    for (const { tutorId, month } of timesheets.values()) {
      const state = await look.load(timesheet.timesheetStream(tutorId, month), timesheet.timesheetDecider);
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
    return lessons;
  }

  /** The names a lessons invoice's lines need: children from the family's stream, tutors from theirs. */
  async function namesOf(look: CommandContext, clientId: string, lines: readonly FamilyInvoiceLine[]) {
    const children = await look.load(client.clientStream(clientId), childNames);
    const names = new Map<string, string>();
    for (const line of lines) {
      if (!line.lesson) continue;
      const { studentId, tutorId } = line.lesson;
      names.set(studentId, children[studentId] ?? '');
      if (!names.has(tutorId)) names.set(tutorId, await look.load(tutor.tutorStream(tutorId), tutorName));
    }
    return [...names].map(([id, name]) => ({ id, name }));
  }

  /** The family's lessons invoices that stand (issued, not credited): each month's latest revision. */
  async function positionOf(look: CommandContext, clientId: string, months: readonly string[]) {
    const standing: { month: string; id: string; revision: number; invoice: Issued }[] = [];
    for (const month of [...months].sort()) {
      const chain = await revisionsOf(look, clientId, month);
      const last = chain[chain.length - 1];
      if (!last) continue;
      if (last.state.status === 'issued')
        standing.push({ month, id: last.id, revision: last.revision, invoice: last.state.invoice });
    }
    return { standing };
  }

  return { revisionsOf, candidates, lessonsNow, namesOf, positionOf };
}

/**
 * The `lesson-billing` reactor: for each family with lessons to bill in the month asked for (or a
 * late change to bill since), one invoice under an id derived from the family and the month, its
 * number taken for that id (a re-run, a retry or a second instance issues it once under one number).
 * The read models only find candidates; what is billed comes from the streams: the timesheets, the
 * money models, the family's earlier lessons invoices (found by their derived ids).
 */
export function lessonBillingReactor({ db, invoicing }: { db: pg.Pool; invoicing: FamilyInvoicing }): Reactor {
  const reader = lessonBillingReader({ db });
  return {
    name: LESSON_BILLING_REACTOR,
    handles: ['FamilyLessonBillingRequested', 'FamilyLessonCreditRequested'],
    async react(event, act) {
      if (event.type === 'FamilyLessonCreditRequested') {
        await creditAndBillAgain(event.data as lessonBilling.LessonCreditRequest, act);
        return;
      }
      const { month } = event.data as { month: string };
      const look = act('look');
      const requested = await look.load(lessonBilling.lessonBillingStream(), lessonBilling.lessonBillingDecider);
      // The months whose lessons are billed: the ones asked for up to this one.
      const months = [...new Set([...requested.months, month])].filter((m) => m <= month);
      const families = await reader.candidates(months, month, null);
      for (const [clientId, sheets] of families) {
        const invoiceId = lessonInvoiceIdOf(clientId, month);
        if ((await reader.revisionsOf(look, clientId, month))[0]?.state.status !== 'none') continue;
        const family = await look.load(client.clientStream(clientId), client.clientDecider);
        // An erased family is not billed: it cannot be addressed (docs/money-models.md).
        if (family.status !== 'registered' || family.erased) continue;
        // What each lesson was billed so far: the family's invoices of every other month asked for
        // that stand, later ones too: a month asked for again after a later month's invoice billed
        // its lessons recorded late as adjustments must not bill them a second time.
        const { standing } = await reader.positionOf(
          look,
          clientId,
          [...requested.months].filter((m) => m !== month),
        );
        const billed = lessonBilling.billedSoFar(standing.map(({ invoice }) => invoice));
        const lessons = await reader.lessonsNow(look, family.childIds, sheets, billed);
        const { lines, tutorBilled } = lessonBilling.lessonInvoiceLines(month, lessons, billed);
        // Nothing to bill, or less than nothing: carried forward to the next month's invoice.
        if (!lessonBilling.issuable(lines)) continue;
        const names = await reader.namesOf(look, clientId, lines);
        await invoicing.issue(act(invoiceId), {
          invoiceId,
          clientId,
          billedFor: { kind: 'lessons', id: month },
          lines,
          tutorBilled,
          names,
        });
      }
    },
  };

  /**
   * A family's credit request: its latest lessons invoice credited whole, and the month billed again
   * on the next revision, the lessons at what they are now (every other standing invoice counted as
   * billed). Credit note and invoice under ids derived from the invoice, so a re-run issues each once.
   * Should the month billed again come to less than nothing now (lessons changed again since the
   * request was checked), only the credit note is issued and the rest is carried forward.
   */
  async function creditAndBillAgain(request: lessonBilling.LessonCreditRequest, act: (key: string) => CommandContext) {
    const { clientId, month, creditedId, nextId } = request;
    const look = act('look');
    const family = await look.load(client.clientStream(clientId), client.clientDecider);
    if (family.status !== 'registered' || family.erased) return;
    const requested = await look.load(lessonBilling.lessonBillingStream(), lessonBilling.lessonBillingDecider);
    const months = [...requested.months].filter((m) => m <= month);
    const { standing } = await reader.positionOf(look, clientId, months);
    const billed = lessonBilling.billedSoFar(standing.filter(({ id }) => id !== creditedId).map((s) => s.invoice));
    const sheets = (await reader.candidates(months, month, clientId)).get(clientId) ?? [];
    const lessons = await reader.lessonsNow(look, family.childIds, sheets, billed);
    const { lines, tutorBilled } = lessonBilling.lessonInvoiceLines(month, lessons, billed);
    await invoicing.credit(act(creditedId), creditedId, 'changed');
    if (!lessonBilling.issuable(lines)) return;
    const names = await reader.namesOf(look, clientId, lines);
    await invoicing.issue(act(nextId), {
      invoiceId: nextId,
      clientId,
      billedFor: { kind: 'lessons', id: month },
      lines,
      tutorBilled,
      names,
    });
  }
}
