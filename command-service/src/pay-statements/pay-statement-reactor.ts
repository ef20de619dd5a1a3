import type { ProductEvent } from '@agency/contracts';
import type { RecordedEvent } from '@agency/platform';
import type pg from 'pg';
import type { Reactor } from '../reactors/reactor';
import { issuePayStatement } from './pay-statement-issuing';

export const PAY_STATEMENTS_REACTOR = 'pay-statements';

type Prepared = Extract<ProductEvent, { type: 'PayStatementsPrepared' }>['data'];

/**
 * A month prepared is followed by each of its tutors' pay statements (docs/money-models.md, "Pay
 * statements"), one command per tutor on that tutor's statement stream: its id derives from the
 * preparation and the tutor, and the statement's id from the tutor and the month, so a crash
 * half-way, a retry or a second preparation issues each statement once.
 */
export function payStatementReactor(db: pg.Pool): Reactor {
  return {
    name: PAY_STATEMENTS_REACTOR,
    handles: ['PayStatementsPrepared'],
    async react(event: RecordedEvent, act) {
      const { month, date, tutorIds } = event.data as Prepared;
      for (const tutorId of tutorIds) await issuePayStatement(act(tutorId), db, { tutorId, month, date });
    },
  };
}
