import { invoiceConfirmBody, invoicePaymentBody, invoiceSaveBody, invoiceWithdrawBody } from '@agency/contracts';
import { engagement, invoice, timesheet, todayIn, toPence, tutor } from '@agency/domain';
import { forbidden, notFound } from '@agency/platform';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { type CommandContext, type CommandDependencies, commandRoute } from '../pipeline/command-pipeline';
import { readModelLookups } from '../read-model/lookups';

/**
 * The invoice id names its tutor and month, `{tutorId}_{yyyy-mm}`: the stream is found from the
 * id alone, and the id exists before the invoice does, so the month's lock can name it.
 */
export const invoiceIdOf = (tutorId: string, month: string) => `${tutorId}_${month}`;

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
const invoiceView = (_: unknown, answer: { invoice: { id: string } }) =>
  `/api/invoices/${encodeURIComponent(answer.invoice.id)}`;

export type InvoiceRouteOptions = { deps: CommandDependencies; db: pg.Pool; timeZone: string };

/**
 * Invoices: generate (locking the month's lessons first), confirm, withdraw an unconfirmed one
 * (voiding its reference and unlocking the month), record a payment. The
 * invoice number comes from a per-tutor counter on the command side, taken only when the
 * invoice stream is still empty, so generating again neither repeats nor wastes a number.
 */
export async function invoiceRoutes(app: FastifyInstance, { deps, db, timeZone }: InvoiceRouteOptions) {
  const { invoiceDecider, invoiceStream } = invoice;
  const { timesheetDecider, timesheetStream } = timesheet;

  const actorOf = (user: CommandContext['user']): timesheet.Actor => ({ role: user.role, tutorId: user.tutorId });

  const lookups = readModelLookups(db);

  async function invoicePrefixOf(tutorId: string): Promise<string> {
    const prefix = await lookups.invoicePrefixOf(tutorId);
    if (prefix === undefined) throw notFound('There is no such tutor.');
    return prefix;
  }

  async function nextNumber(tutorId: string): Promise<number> {
    const taken = await db.query(
      `insert into invoice.reference_counters as counter (tutor_id, last_number) values ($1, 1)
       on conflict (tutor_id) do update set last_number = counter.last_number + 1
       returning last_number`,
      [tutorId],
    );
    return taken.rows[0].last_number;
  }

  /**
   * When each of the tutor's engagements ran, ended ones included, from the event store (never a
   * read model that may lag): the tutor's state names every engagement it ever had, and each
   * engagement's own stream gives its first and last day.
   */
  async function engagementSpansOf(tutorId: string, load: CommandContext['load']): Promise<invoice.EngagementSpan[]> {
    const ids = tutor.engagementsEverOf(await load(tutor.tutorStream(tutorId), tutor.tutorDecider));
    const spans = await Promise.all(
      ids.map(async (id) =>
        engagement.summaryOf(await load(engagement.engagementStream(id), engagement.engagementDecider)),
      ),
    );
    return spans.flatMap((span) => (span ? [{ startDate: span.startDate, endDate: span.endDate }] : []));
  }

  async function existingInvoice(id: string, load: CommandContext['load']): Promise<Generated> {
    const key = parseInvoiceId(id);
    if (!key) throw notFound('There is no such invoice.');
    const state = await load(invoiceStream(key.tutorId, key.month), invoiceDecider);
    if (state.status === 'none') throw notFound('There is no such invoice.');
    return state;
  }

  commandRoute(app, deps, {
    url: '/api/invoices/save',
    roles: ['admin', 'partner', 'tutor'],
    body: invoiceSaveBody,
    handle: async ({ body }, { run, load, user, now }) => {
      const { tutorId } = body;
      const month = monthOf(body.year, body.month);
      const actor = actorOf(user);
      // Checked before the lock: a refused generation must leave the timesheet open.
      timesheet.checkMayRecordFor(actor, tutorId);
      const invoicePrefix = await invoicePrefixOf(tutorId);
      const today = todayIn(timeZone, now);
      const stream = invoiceStream(tutorId, month);
      const already = await load(stream, invoiceDecider);
      if (already.status !== 'none') return invoiceIdAnswer(already);
      // Not a future month, and one the tutor had an engagement in: checked before the lock.
      invoice.checkMonthInvoiceable(month, today, await engagementSpansOf(tutorId, load));

      const invoiceId = invoiceIdOf(tutorId, month);
      const sheet = await run(timesheetStream(tutorId, month), timesheetDecider, {
        type: 'LockMonth',
        tutorId,
        month,
        invoiceId,
      });
      const generated = await run(stream, invoiceDecider, {
        type: 'GenerateInvoice',
        invoiceId,
        tutorId,
        month,
        invoicePrefix,
        number: await nextNumber(tutorId),
        date: today,
        lessons: timesheet.lessonsOf(sheet),
        actor,
      });
      if (generated.status === 'none') throw new Error('an invoice that was just generated is missing');
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
    handle: async ({ body }, { run, load, user }) => {
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
      // After the withdrawal, so a refused one leaves the month locked; a retry unlocks it.
      await run(timesheetStream(key.tutorId, key.month), timesheetDecider, {
        type: 'UnlockMonth',
        ...key,
        invoiceId: body.id,
      });
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
