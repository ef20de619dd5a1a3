import { invoiceConfirmBody, invoicePaymentBody, invoiceSaveBody, invoiceWithdrawBody } from '@agency/contracts';
import { type Decider, engagement, invoice, timesheet, todayIn, toPence, tutor } from '@agency/domain';
import { forbidden, HttpError, notFound } from '@agency/platform';
import type { FastifyInstance } from 'fastify';
import { LESSON_REPRICING } from '../lessons/lesson-repricing-reactor';
import { modelStatesNow } from '../money-model/model-streams';
import { type CommandContext, type CommandDependencies, commandRoute } from '../pipeline/command-pipeline';
import type { CallerViews } from '../pipeline/views';
import { INVOICES_REACTOR } from './invoice-reactor';

const { invoiceIdOf } = invoice;

/** The tutor and month an invoice id names (see `invoice.invoiceIdOf`). */
export function parseInvoiceId(id: string): { tutorId: string; month: string } | undefined {
  const match = /^(.+)_(\d{4}-(?:0[1-9]|1[0-2]))$/.exec(id);
  return match ? { tutorId: match[1]!, month: match[2]! } : undefined;
}

const monthOf = (year: number, month: number) => `${year}-${String(month).padStart(2, '0')}`;

type Generated = Exclude<invoice.InvoiceState, { status: 'none' }>;

/**
 * The invoice commands answer the invoice's id; the invoice itself (as `GET /api/invoices/:id`
 * shows it, to the caller's role: a tutor gets no partner share) is added by the query side.
 */
const invoiceIdAnswer = (state: Generated) => ({ invoice: { id: state.invoice.invoiceId } });
const invoiceView = (_: unknown, answer: { invoice: { id: string } }, views: CallerViews) =>
  views.invoice(answer.invoice.id);

/** A decider's state with the number of events folded: two loads that count alike saw the same stream. */
const counted = <S>(decider: Pick<Decider<unknown, never, S>, 'initialState' | 'evolve'>) => ({
  initialState: () => ({ events: 0, state: decider.initialState() }),
  evolve: (seen: { events: number; state: S }, event: never) => ({
    events: seen.events + 1,
    state: decider.evolve(seen.state, event),
  }),
});
const countedTimesheet = counted(timesheet.timesheetDecider);
const countedInvoice = counted(invoice.invoiceDecider);

/** Answered while the invoices reactor has not (yet) done what a command waits for: a retry completes it. */
const underWay = (doing: string) =>
  new HttpError(503, 'under_way', `The invoice is still being ${doing}. Please try again in a moment.`);

/** Answered while a change of terms is still repricing the month's lessons: nothing was written. */
const repricingUnderWay = () =>
  new HttpError(
    503,
    'under_way',
    "This month's lessons are still being repriced after a change of rates. Please try again in a moment.",
  );

export type InvoiceRouteOptions = { deps: CommandDependencies; timeZone: string };

/**
 * Invoices: generate (lock the month's lessons; the invoice follows), confirm, withdraw an
 * unconfirmed one (voiding its reference; the month opens again after it), record a payment.
 *
 * A generation's decisive write is the month's lock on the timesheet, not the invoice: the lock
 * is what freezes the lessons, decided at the timesheet's revision against every lesson save, so
 * the invoice made from the locked lessons (by the invoices reactor, with a number of the tutor's
 * sequence taken for that lock) is exactly what the tutor can no longer change. An invoice written
 * first could be followed by a lesson saved before the lock. The reverse steps follow the same
 * rule: the withdrawal is decided on the invoice, and the month's unlock follows from it.
 */
export async function invoiceRoutes(app: FastifyInstance, { deps, timeZone }: InvoiceRouteOptions) {
  const { invoiceDecider, invoiceStream } = invoice;
  const { timesheetDecider, timesheetStream } = timesheet;

  const actorOf = (user: CommandContext['user']): timesheet.Actor => ({ role: user.role, tutorId: user.tutorId });

  /** The tutor from their own stream (never a read model that may lag): it holds the invoice prefix. */
  async function tutorOf(tutorId: string, load: CommandContext['load']) {
    const state = await load(tutor.tutorStream(tutorId), tutor.tutorDecider);
    if (state.status === 'none') throw notFound('There is no such tutor.');
    return state;
  }

  /**
   * Each of the tutor's engagements, ended ones included, from the event store (never a read model
   * that may lag): the tutor's state names every engagement it ever had, and each engagement's own
   * stream gives its first and last day and its periods.
   */
  async function engagementsOf(
    tutorState: tutor.TutorState,
    load: CommandContext['load'],
  ): Promise<engagement.EngagementSummary[]> {
    const ids = tutor.engagementsEverOf(tutorState);
    const summaries = await Promise.all(
      ids.map(async (id) =>
        engagement.summaryOf(await load(engagement.engagementStream(id), engagement.engagementDecider)),
      ),
    );
    return summaries.flatMap((summary) => (summary ? [summary] : []));
  }

  async function existingInvoice(id: string, load: CommandContext['load']): Promise<Generated> {
    const key = parseInvoiceId(id);
    if (!key) throw notFound('There is no such invoice.');
    const state = await load(invoiceStream(key.tutorId, key.month), invoiceDecider);
    if (state.status === 'none') throw notFound('There is no such invoice.');
    return state;
  }

  /** The month's timesheet and invoice as their streams stand, with how many events both hold. */
  async function monthNow(tutorId: string, month: string, load: CommandContext['load']) {
    const sheet = await load(timesheetStream(tutorId, month), countedTimesheet);
    const current = await load(invoiceStream(tutorId, month), countedInvoice);
    return { sheet: sheet.state, invoice: current.state, events: sheet.events + current.events };
  }

  commandRoute(app, deps, {
    url: '/api/invoices/save',
    roles: ['admin', 'partner', 'tutor'],
    body: invoiceSaveBody,
    handle: async ({ body }, { run, load, user, now, settle }) => {
      const { tutorId } = body;
      const month = monthOf(body.year, body.month);
      const invoiceId = invoiceIdOf(tutorId, month);
      // Checked before anything is read: a refused generation leaves the timesheet open.
      timesheet.checkMayRecordFor(actorOf(user), tutorId);
      const tutorState = await tutorOf(tutorId, load);
      // The command's one write. A command run again finds its own lock (and answers with its
      // first run's position); anyone else's finds the month locked already and writes nothing.
      const lock = (again?: boolean) =>
        run(timesheetStream(tutorId, month), timesheetDecider, {
          type: 'LockMonth',
          tutorId,
          month,
          invoiceId,
          ...(again ? { again } : {}),
        });
      const answerWith = async (generated: Generated) => {
        await lock();
        return invoiceIdAnswer(generated);
      };
      const current = await load(invoiceStream(tutorId, month), invoiceDecider);
      // The invoice page generates on every visit: the second time answers with the first invoice.
      if (current.status !== 'none') return answerWith(current);
      const today = todayIn(timeZone, now);
      // An ended month the tutor had an engagement in (the current one only when asked to invoice
      // it early): checked before the lock.
      const engagements = await engagementsOf(tutorState, load);
      invoice.checkMonthInvoiceable(month, today, engagements, body.early);
      let sheet = await load(timesheetStream(tutorId, month), timesheetDecider);
      let again = false;
      if (sheet.status === 'locked') {
        // Locked with no invoice: a generation whose invoice is not made yet, or a withdrawal whose
        // month is not open yet. Both are the invoices reactor's: once it has reacted to all of it,
        // the month is invoiced or open, or else (nothing changed meanwhile) its lock is one no
        // invoice will follow (recorded before invoices followed locks, the generation died
        // half-way): that lock is recorded again, and the invoice follows it.
        const seen = await monthNow(tutorId, month, load);
        const caughtUp = await settle([INVOICES_REACTOR]);
        const after = await monthNow(tutorId, month, load);
        if (after.invoice.status !== 'none') return answerWith(after.invoice);
        if (after.sheet.status === 'locked') {
          if (!caughtUp || after.events !== seen.events) throw underWay('generated');
          again = true;
        }
        sheet = after.sheet;
      }
      if (timesheet.awaitsRepricing(sheet, engagements)) {
        // A change of terms whose repricing has not reached these lessons yet: waited for, so the
        // invoice bills them as the period in force on their dates prices them, never as before.
        const caughtUp = await settle([LESSON_REPRICING]);
        sheet = await load(timesheetStream(tutorId, month), timesheetDecider);
        if (!caughtUp) throw repricingUnderWay();
      }
      // Everything the invoice will need, checked before the lock (a command is never refused
      // after it wrote): the reactor generates this very command, under the number it takes.
      // Only the lessons under the spec's model are billed to the tutor (docs/money-models.md).
      const lessons = timesheet.lessonsOf(sheet);
      const billed = invoice.commissionLessons(lessons, await modelStatesNow(load, lessons));
      invoiceDecider.decide(
        invoice.invoiceAfterLock(
          { tutorId, month, invoiceId },
          { lessons: billed, invoicePrefix: tutorState.invoicePrefix, number: 1, date: today },
        ),
        invoiceDecider.initialState(),
        now,
      );
      await lock(again);
      await settle([INVOICES_REACTOR]);
      const generated = await load(invoiceStream(tutorId, month), invoiceDecider);
      if (generated.status === 'none') throw underWay('generated');
      return invoiceIdAnswer(generated);
    },
    view: invoiceView,
  });

  commandRoute(app, deps, {
    url: '/api/invoices/confirm',
    roles: ['admin', 'partner', 'tutor'],
    body: invoiceConfirmBody,
    handle: async ({ body }, { run, load, user }) => {
      const { invoice: generated } = await existingInvoice(body.id, load);
      const confirmed = await run(invoiceStream(generated.tutorId, generated.month), invoiceDecider, {
        type: 'ConfirmInvoice',
        actor: actorOf(user),
      });
      if (confirmed.status === 'none') throw notFound('There is no such invoice.');
      return invoiceIdAnswer(confirmed);
    },
    view: invoiceView,
  });

  commandRoute(app, deps, {
    url: '/api/invoices/withdraw',
    roles: ['admin', 'partner', 'tutor'],
    body: invoiceWithdrawBody,
    handle: async ({ body }, { run, load, user, settle }) => {
      const key = parseInvoiceId(body.id);
      if (!key) throw notFound('There is no such invoice.');
      // Checked before anything is read: another tutor learns nothing of this month.
      if (user.role !== 'admin' && user.tutorId !== key.tutorId) {
        throw forbidden("Only the invoice's tutor or an admin can withdraw it.");
      }
      const stream = invoiceStream(key.tutorId, key.month);
      const before = await load(stream, invoiceDecider);
      if (before.status === 'none' && before.voided.length === 0) throw notFound('There is no such invoice.');
      const after = await run(stream, invoiceDecider, { type: 'WithdrawInvoice', actor: actorOf(user) });
      // The month opens again as the invoices reactor's reaction to the withdrawal: waited for, so
      // that the lessons can be corrected as soon as the answer is in.
      const seen = await monthNow(key.tutorId, key.month, load);
      const caughtUp = await settle([INVOICES_REACTOR]);
      const latest = await monthNow(key.tutorId, key.month, load);
      const stillLocked =
        latest.invoice.status === 'none' && latest.sheet.status === 'locked' && latest.sheet.invoiceId === body.id;
      if (before.status === 'none' && caughtUp && latest.events === seen.events && stillLocked) {
        // Withdrawn earlier, and the reactor has reacted to everything since with the month still
        // locked: a withdrawal recorded before unlocks followed withdrawals (its unlock died
        // half-way), or a lock no invoice followed. This command recorded no withdrawal, so opening
        // the month is its one write.
        await run(
          timesheetStream(key.tutorId, key.month),
          timesheetDecider,
          invoice.unlockAfterWithdrawal({ ...key, invoiceId: body.id }),
        );
      }
      return { invoice: { id: body.id, tutorId: key.tutorId, month: key.month, voided: after.voided } };
    },
  });

  commandRoute(app, deps, {
    url: '/api/invoices/payment',
    roles: ['admin'],
    body: invoicePaymentBody,
    handle: async ({ body }, { run, load, user, newId }) => {
      const { invoice: generated } = await existingInvoice(body.invoiceId, load);
      const paid = await run(invoiceStream(generated.tutorId, generated.month), invoiceDecider, {
        type: 'RecordPayment',
        paymentId: newId(),
        date: body.date,
        amountPence: toPence(body.amount, 'Amount'),
        actor: actorOf(user),
      });
      if (paid.status === 'none') throw notFound('There is no such invoice.');
      return invoiceIdAnswer(paid);
    },
    view: invoiceView,
  });
}
