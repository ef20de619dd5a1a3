import { type Decider, fold, invoice, timesheet, todayIn, tutor } from '@agency/domain';
import { comparePositions, type EventStore, type RecordedEvent } from '@agency/platform';
import type pg from 'pg';
import { modelStatesAsOf } from '../money-model/model-streams';
import type { CommandContext } from '../pipeline/command-pipeline';
import type { Reactor } from '../reactors/reactor';

export const INVOICES_REACTOR = 'invoices';

const { invoiceDecider, invoiceStream, invoiceNumbersDecider, invoiceNumbersStream } = invoice;
const { timesheetDecider, timesheetStream } = timesheet;

const folded = <S>(decider: Pick<Decider<unknown, never, S>, 'initialState' | 'evolve'>, events: RecordedEvent[]) =>
  fold(
    decider,
    events.map((event) => ({ type: event.type, data: event.data }) as never),
  );

const monthKeyOf = (event: RecordedEvent): invoice.MonthKey => ({
  tutorId: String(event.data.tutorId),
  month: String(event.data.month),
  invoiceId: String(event.data.invoiceId),
});

/**
 * What follows on other streams from a tutor invoice's decisive writes:
 * - a month locked (`TimesheetMonthLocked`): its invoice is generated from the lessons the lock
 *   froze, under a number of the tutor's sequence taken for this generation (the lock's event id),
 *   so however often the step runs it takes one number and generates once;
 * - an invoice withdrawn (`InvoiceWithdrawn`): its month is unlocked.
 * One reactor for both, so a month's lock, generation, withdrawal and unlock are reacted to in the
 * order they were recorded.
 */
export function invoiceReactor({ store, db, timeZone }: { store: EventStore; db: pg.Pool; timeZone: string }): Reactor {
  /**
   * The highest number given before numbers were taken in the tutor's sequence stream (the
   * command side's counter of that time): new numbers continue after it, so none repeats.
   */
  async function numberedBefore(tutorId: string): Promise<number> {
    const found = await db.query<{ last_number: number }>(
      'select last_number from invoice.reference_counters where tutor_id = $1',
      [tutorId],
    );
    return found.rows[0]?.last_number ?? 0;
  }

  async function takeNumber(context: CommandContext, lock: invoice.MonthKey, generationId: string) {
    const numbers = await context.run(invoiceNumbersStream(lock.tutorId), invoiceNumbersDecider, {
      type: 'TakeInvoiceNumber',
      ...lock,
      generationId,
      after: await numberedBefore(lock.tutorId),
    });
    const number = invoice.numberOf(numbers, generationId);
    if (number === undefined) throw new Error('an invoice number that was just taken is missing');
    return number;
  }

  async function generate(event: RecordedEvent, context: CommandContext) {
    const lock = monthKeyOf(event);
    const invoiceHistory = await store.readStream(invoiceStream(lock.tutorId, lock.month));
    const sheetHistory = await store.readStream(timesheetStream(lock.tutorId, lock.month));
    const asks = invoice.lockAsksForInvoice(lock, {
      invoice: folded(invoiceDecider, invoiceHistory),
      invoiceChangedSinceLock: invoiceHistory.some(
        (recorded) => comparePositions(recorded.position, event.position) > 0,
      ),
      timesheet: folded(timesheetDecider, sheetHistory),
    });
    if (!asks) return;
    const frozen = folded(
      timesheetDecider,
      sheetHistory.filter((recorded) => recorded.revision <= event.revision),
    );
    const lessons = timesheet.lessonsOf(frozen);
    // Which model each lesson is under, as the streams stood at the lock: what the route decided.
    const models = await modelStatesAsOf(store, event.position, lessons);
    const tutorState = await context.load(tutor.tutorStream(lock.tutorId), tutor.tutorDecider);
    if (tutorState.status === 'none') throw new Error(`tutor ${lock.tutorId} of a locked month is missing`);
    const number = await takeNumber(context, lock, event.id);
    await context.run(
      invoiceStream(lock.tutorId, lock.month),
      invoiceDecider,
      invoice.invoiceAfterLock(lock, {
        lessons: invoice.commissionLessons(lessons, models),
        invoicePrefix: tutorState.invoicePrefix,
        number,
        // The day of the lock: a reaction's time is its event's.
        date: todayIn(timeZone, context.now),
      }),
    );
  }

  return {
    name: INVOICES_REACTOR,
    handles: ['TimesheetMonthLocked', 'InvoiceWithdrawn'],
    async react(event, act) {
      const key = monthKeyOf(event);
      if (event.type === 'TimesheetMonthLocked') return generate(event, act(`generate:${key.invoiceId}`));
      await act(`unlock:${key.invoiceId}`).run(
        timesheetStream(key.tutorId, key.month),
        timesheetDecider,
        invoice.unlockAfterWithdrawal(key),
      );
    },
  };
}
