import type { ProductEvent } from '@agency/contracts';
import { payStatement } from '@agency/domain';
import type { RecordedEvent } from '@agency/platform';
import type { Reactor } from '../reactors/reactor';

export const PAY_RUNS_REACTOR = 'pay-runs';

type Paid = Extract<ProductEvent, { type: 'PayRunPaid' }>['data'];

/**
 * A pay run marked paid is followed by each of its payments recorded on its pay statement
 * (docs/money-models.md, "Pay runs"): one command per payment, its id derived from the run's event
 * and the payment, and the payment's own id derived from the run and the statement, so a crash
 * half-way, a retry or a second instance records each once. A statement paid elsewhere since the
 * run was prepared gets only what it still owes (nothing when that is nothing).
 */
export const payRunReactor: Reactor = {
  name: PAY_RUNS_REACTOR,
  handles: ['PayRunPaid'],
  async react(event: RecordedEvent, act) {
    const data = event.data as Paid;
    for (const payment of data.payments) {
      const { run, load } = act(payment.paymentId);
      const stream = payStatement.payStatementStream(payment.tutorId, payment.month);
      const state = await load(stream, payStatement.payStatementDecider);
      if (state.status !== 'issued' || state.paymentIds.has(payment.paymentId)) continue;
      const amountPence = Math.min(payment.amountPence, payStatement.owedOf(state));
      if (amountPence <= 0) continue;
      await run(stream, payStatement.payStatementDecider, {
        type: 'RecordTutorPayment',
        paymentId: payment.paymentId,
        payRunId: data.payRunId,
        date: data.date,
        amountPence,
        actor: { role: 'admin' },
      });
    }
  },
};
