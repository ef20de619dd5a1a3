import type { PayEvent } from '@agency/contracts';
import { describe, expect, it } from 'vitest';
import { fold } from '../shared/decider';
import { commissionOf, lessonAmount } from '../shared/money';
import { specFor } from '../testing/given-when-then';
import {
  addMonths,
  type IssuedStatement,
  type PayLesson,
  payStatementDecider,
  payStatementId,
  preparedDecider,
  statementLines,
  totalOf,
  windowOf,
} from './pay-statement';

const TUTOR = 't1';
/** A lesson as the timesheet prices it: duration × rate half up, the commission half up on the amount. */
function lesson(id: string, date: string, duration: number, ratePence: number, commissionBp: number, held = false) {
  const amountPence = lessonAmount(duration, ratePence);
  return {
    lessonId: id,
    engagementId: 'e1',
    studentId: 's1',
    clientId: 'c1',
    date,
    month: date.slice(0, 7),
    duration,
    ratePence,
    amountPence,
    amountEdited: false,
    commissionBp,
    commissionPence: commissionOf(amountPence, commissionBp),
    partnerBp: 0,
    partnerCommissionPence: 0,
    held,
  } satisfies PayLesson;
}

/** The statement `statementLines` gives, as issued (the total summed by the decider). */
function issue(month: string, lessons: PayLesson[], earlier: IssuedStatement[]): IssuedStatement | null {
  const computed = statementLines({ month, lessons, earlier });
  if (!computed) return null;
  const draft = {
    statementId: payStatementId(TUTOR, month),
    tutorId: TUTOR,
    month,
    reference: `PS-T-${month}`,
    date: `${month}-28`,
    ...computed,
  };
  const [event] = payStatementDecider.decide(
    { type: 'IssuePayStatement', statement: draft },
    { status: 'none' },
    new Date(),
  );
  if (event?.type !== 'PayStatementIssued') throw new Error('not issued');
  return event.data;
}

describe('pay rules', () => {
  it('pays each lesson its earnings less the agency’s share, to the penny, half up as the timesheet', () => {
    // 1.25 h at £33.33 = £41.6625 → £41.66; 17.5 % of it = £7.2905 → £7.29; pay £34.37.
    // 0.75 h at £25.50 = £19.125 → £19.13; 12.5 % = £2.39125 → £2.39; pay £16.74.
    const a = lesson('a', '2026-03-03', 125, 3333, 1750);
    const b = lesson('b', '2026-03-10', 75, 2550, 1250);
    expect([a.amountPence, a.commissionPence, b.amountPence, b.commissionPence]).toEqual([4166, 729, 1913, 239]);
    const statement = issue('2026-03', [b, a], []);
    expect(
      statement?.lines.map((l) => [l.kind, l.lessonId, l.amountPence, l.sharePence, l.payPence, l.linePence]),
    ).toEqual([
      ['lesson', 'a', 4166, 729, 3437, 3437],
      ['lesson', 'b', 1913, 239, 1674, 1674],
    ]);
    expect(statement?.totalPayPence).toBe(5111);
  });

  it('leaves a later month’s lessons for its own statement, and issues nothing when there is nothing to say', () => {
    expect(issue('2026-03', [lesson('a', '2026-04-01', 100, 3000, 1000)], [])).toBeNull();
  });

  it('holds a lesson until its family pays, outside the total, then pays it on the first statement after', () => {
    const a = lesson('a', '2026-03-03', 100, 3000, 2000);
    const b = lesson('b', '2026-03-04', 100, 4000, 2000, true);
    const march = issue('2026-03', [a, b], []) as IssuedStatement;
    expect(march.lines.map((l) => [l.kind, l.payPence, l.linePence])).toEqual([
      ['lesson', 2400, 2400],
      ['held', 3200, 0],
    ]);
    expect(march.totalPayPence).toBe(2400);
    // Still unpaid in April: held again; paid before May's: released on May's, once.
    const april = issue('2026-04', [a, b], [march]) as IssuedStatement;
    expect(april.lines.map((l) => [l.kind, l.lessonId, l.linePence])).toEqual([['held', 'b', 0]]);
    expect(april.totalPayPence).toBe(0);
    const paid = { ...b, held: false };
    const may = issue('2026-05', [a, paid], [march, april]) as IssuedStatement;
    expect(may.lines.map((l) => [l.kind, l.lessonId, l.linePence])).toEqual([['released', 'b', 3200]]);
    expect(may.totalPayPence).toBe(3200);
    expect(issue('2026-06', [a, paid], [march, april, may])).toBeNull();
  });

  it('pays a late change as the difference on the next statement; an issued one never changes', () => {
    const a = lesson('a', '2026-03-03', 100, 3000, 2000);
    const march = issue('2026-03', [a, lesson('b', '2026-03-05', 100, 3000, 2000)], []) as IssuedStatement;
    const before = structuredClone(march);
    // After March's statement: a made 1.5 h, b removed, c recorded for 20 March.
    const longer = lesson('a', '2026-03-03', 150, 3000, 2000);
    const late = lesson('c', '2026-03-20', 100, 3000, 2000);
    const april = issue(
      '2026-04',
      [longer, late, lesson('d', '2026-04-02', 100, 3000, 2000)],
      [march],
    ) as IssuedStatement;
    expect(april.lines.map((l) => [l.kind, l.lessonId, l.payPence, l.paidBeforePence, l.linePence, l.removed])).toEqual(
      [
        ['adjustment', 'a', 3600, 2400, 1200, false],
        ['adjustment', 'b', 0, 2400, -2400, true],
        ['adjustment', 'c', 2400, 0, 2400, false],
        ['lesson', 'd', 2400, 0, 2400, false],
      ],
    );
    expect(april.totalPayPence).toBe(3600);
    expect(march).toEqual(before);
    // Nothing changed since: May says nothing more about them.
    expect(issue('2026-05', [longer, late, lesson('d', '2026-04-02', 100, 3000, 2000)], [march, april])).toBeNull();
  });

  it('carries a total below 0 to the next statement, and a removed lesson recorded again is paid again', () => {
    const a = lesson('a', '2026-03-03', 100, 3000, 2000);
    const march = issue('2026-03', [a], []) as IssuedStatement;
    const april = issue('2026-04', [], [march]) as IssuedStatement;
    expect(april.totalPayPence).toBe(-2400);
    const may = issue('2026-05', [lesson('m', '2026-05-01', 100, 5000, 2000)], [march, april]) as IssuedStatement;
    expect([may.carriedPence, may.totalPayPence]).toEqual([-2400, 1600]);
    const june = issue('2026-06', [a, lesson('m', '2026-05-01', 100, 5000, 2000)], [march, april, may]);
    expect(june?.lines.map((l) => [l.kind, l.lessonId, l.paidBeforePence, l.linePence])).toEqual([
      ['adjustment', 'a', 0, 2400],
    ]);
    expect(june?.carriedPence).toBe(0);
  });

  it('looks back twelve months', () => {
    expect(addMonths('2026-01', -1)).toBe('2025-12');
    expect(addMonths('2025-12', 1)).toBe('2026-01');
    expect(windowOf('2026-03')).toHaveLength(13);
    expect(windowOf('2026-03')[0]).toBe('2025-03');
    expect(issue('2026-03', [lesson('old', '2025-02-27', 100, 3000, 0)], [])).toBeNull();
  });
});

describe('the pay statement stream', () => {
  const spec = specFor(payStatementDecider);
  const statement = issue('2026-03', [lesson('a', '2026-03-03', 100, 3000, 2000)], []) as IssuedStatement;
  const issued: PayEvent = { type: 'PayStatementIssued', data: statement };
  const key = { statementId: statement.statementId, tutorId: TUTOR, month: '2026-03' };
  const admin = { role: 'admin' as const };
  const pay = (
    paymentId: string,
    amountPence: number,
    actor: { role: 'admin' | 'tutor'; tutorId?: string } = admin,
  ) => ({
    type: 'RecordTutorPayment' as const,
    paymentId,
    payRunId: 'run-1',
    date: '2026-04-05',
    amountPence,
    actor,
  });

  it('is issued once: a second issue records nothing', () => {
    const { totalPayPence: _, ...draft } = statement;
    spec([issued]).when({ type: 'IssuePayStatement', statement: draft }).thenEvents([]);
    spec([])
      .when({ type: 'IssuePayStatement', statement: { ...draft, lines: [{ ...draft.lines[0]!, payPence: 1 }] } })
      .thenRefused('invalid', /pay is its amount less the share/);
    spec([])
      .when({ type: 'IssuePayStatement', statement: { ...draft, statementId: 'other' } })
      .thenRefused('invalid');
  });

  it('is confirmed by its own tutor (or an admin on their behalf) only, once', () => {
    spec([issued])
      .when({ type: 'ConfirmPayStatement', actor: { role: 'tutor', tutorId: TUTOR } })
      .thenEvents([{ type: 'PayStatementConfirmed', data: key }]);
    spec([issued, { type: 'PayStatementConfirmed', data: key }])
      .when({ type: 'ConfirmPayStatement', actor: { role: 'tutor', tutorId: TUTOR } })
      .thenEvents([]);
    spec([issued])
      .when({ type: 'ConfirmPayStatement', actor: { role: 'tutor', tutorId: 't2' } })
      .thenRefused('forbidden');
    spec([issued])
      .when({ type: 'ConfirmPayStatement', actor: admin })
      .thenEvents([{ type: 'PayStatementConfirmed', data: key }]);
    spec([])
      .when({ type: 'ConfirmPayStatement', actor: { role: 'tutor', tutorId: TUTOR } })
      .thenRefused('not_found');
  });

  it('records a payment once per payment id, never more than is owed, by an admin', () => {
    const first: PayEvent = {
      type: 'TutorPaymentRecorded',
      data: { ...key, paymentId: 'p1', payRunId: 'run-1', date: '2026-04-05', amountPence: 2000 },
    };
    spec([issued]).when(pay('p1', 2000)).thenEvents([first]);
    spec([issued, first]).when(pay('p1', 2000)).thenEvents([]);
    spec([issued, first])
      .when(pay('p2', 401))
      .thenRefused('conflict', /Only £4.00 is left/);
    spec([issued, first])
      .when(pay('p2', 400))
      .thenEvents([
        { type: 'TutorPaymentRecorded', data: { ...first.data, paymentId: 'p2', amountPence: 400 } } as PayEvent,
      ]);
    spec([issued]).when(pay('p1', 0)).thenRefused('invalid');
    spec([issued])
      .when(pay('p1', 100, { role: 'tutor', tutorId: TUTOR }))
      .thenRefused('forbidden');
    spec([]).when(pay('p1', 100)).thenRefused('not_found');
    const state = fold(payStatementDecider, [issued, first]);
    expect(state.status === 'issued' && state.paidPence).toBe(2000);
    expect(totalOf(statement)).toBe(2400);
  });

  it('prepares each month once, in order, once it has started', () => {
    const prepared = specFor(preparedDecider);
    const march: PayEvent = {
      type: 'PayStatementsPrepared',
      data: { month: '2026-03', date: '2026-04-01', tutorIds: ['t1'] },
    };
    const command = (month: string, date = '2026-04-01') => ({
      type: 'PreparePayStatements' as const,
      month,
      date,
      tutorIds: ['t1'],
      actor: admin,
    });
    prepared([]).when(command('2026-03')).thenEvents([march]);
    prepared([march]).when(command('2026-03')).thenEvents([]);
    prepared([march])
      .when(command('2026-02'))
      .thenRefused('conflict', /March 2026 are prepared already/);
    prepared([])
      .when(command('2026-05'))
      .thenRefused('invalid', /once it has started/);
    prepared([]).when(command('2026-13')).thenRefused('invalid');
    prepared([])
      .when({ ...command('2026-03'), actor: { role: 'tutor', tutorId: 't1' } })
      .thenRefused('forbidden');
  });
});
