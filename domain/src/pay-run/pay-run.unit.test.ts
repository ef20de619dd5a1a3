import { describe, expect, it } from 'vitest';
import { DomainError, fold } from '../shared/decider';
import {
  bankFileCsv,
  bankText,
  checkBankDetails,
  maskAccountNumber,
  type Prepared,
  paymentReference,
  payRunDecider,
  poundsText,
} from './pay-run';

const admin = { role: 'admin' as const };

describe('the bank file', () => {
  it('has a header, then name, sort code, account number, pounds with two decimals and the reference, CRLF', () => {
    const csv = bankFileCsv([
      {
        accountName: 'Ann Smith',
        sortCode: '012345',
        accountNumber: '00123456',
        amountPence: 123_456,
        reference: 'PAY 2026-03',
      },
      { accountName: 'Bo', sortCode: '654321', accountNumber: '87654321', amountPence: 5, reference: 'PS-0001' },
    ]);
    expect(csv).toBe(
      '"Name","Sort code","Account number","Amount","Reference"\r\n' +
        '"ANN SMITH","012345","00123456","1234.56","PAY 2026-03"\r\n' +
        '"BO","654321","87654321","0.05","PS-0001"\r\n',
    );
  });

  it('writes pence as pounds exactly, never through a float', () => {
    expect([0, 1, 10, 99, 100, 101, 1_999_999_99].map(poundsText)).toEqual([
      '0.00',
      '0.01',
      '0.10',
      '0.99',
      '1.00',
      '1.01',
      '1999999.99',
    ]);
  });

  it('keeps names and references to Bacs characters, 18 at most, never starting as a formula', () => {
    expect(bankText('Zoë O’Brien-Smythe & Co. (Ltd)')).toBe('ZOE O BRIEN-SMYTHE');
    expect(bankText('=HYPERLINK("x")')).toBe('HYPERLINK X');
    expect(bankText('-@+cmd|calc')).toBe('CMD CALC');
    expect(bankText('  a,b;c  ')).toBe('A B C');
    expect(bankText('1234567890123456789')).toBe('123456789012345678');
    const csv = bankFileCsv([
      { accountName: '=cmd', sortCode: '123456', accountNumber: '12345678', amountPence: 100, reference: '+SUM(A1)' },
    ]);
    expect(csv.split('\r\n')[1]).toBe('"CMD","123456","12345678","1.00","SUM A1"');
  });

  it('references a roll number first, then a single statement, else the run’s month', () => {
    expect(paymentReference({ month: '2026-03', statementReferences: ['PS-0007'], rollNumber: 'abc/123.45' })).toBe(
      'ABC/123.45',
    );
    expect(paymentReference({ month: '2026-03', statementReferences: ['Ann’s pay 0007'], rollNumber: null })).toBe(
      'ANN S PAY 0007',
    );
    expect(paymentReference({ month: '2026-03', statementReferences: ['A', 'B'], rollNumber: null })).toBe(
      'PAY 2026-03',
    );
    // Fewer than six letters or digits is no Bacs reference.
    expect(paymentReference({ month: '2026-03', statementReferences: ['P-1'], rollNumber: null })).toBe('PAY 2026-03');
  });
});

describe('bank details', () => {
  it('takes a sort code with or without separators and eight digits, and masks the account', () => {
    const details = checkBankDetails({ accountName: ' Ann ', sortCode: '12-34-56', accountNumber: '1234 5678' });
    expect(details).toEqual({ accountName: 'Ann', sortCode: '123456', accountNumber: '12345678', rollNumber: null });
    expect(checkBankDetails({ ...details, sortCode: '12 34 56' }).sortCode).toBe('123456');
    expect(maskAccountNumber('12345678')).toBe('****5678');
    for (const bad of [
      { sortCode: '12-3456' },
      { sortCode: '1234567' },
      { accountNumber: '1234567' },
      { accountName: ' ' },
    ]) {
      expect(() => checkBankDetails({ ...details, ...bad })).toThrow(DomainError);
    }
  });
});

const run = (overrides: Partial<Prepared> = {}): Prepared => ({
  payRunId: '2026-03',
  month: '2026-03',
  date: '2026-04-02',
  lines: [
    {
      tutorId: 't1',
      statements: [
        { statementId: 't1-2026-02', month: '2026-02', reference: 'PS-1', owedPence: 1_001 },
        { statementId: 't1-2026-03', month: '2026-03', reference: 'PS-2', owedPence: 20_050 },
      ],
      amountPence: 21_051,
      reference: 'PAY 2026-03',
      bankDetailsRevision: 0,
      blocked: null,
    },
    {
      tutorId: 't2',
      statements: [{ statementId: 't2-2026-03', month: '2026-03', reference: 'PS-3', owedPence: 500 }],
      amountPence: 500,
      reference: 'PS-3',
      bankDetailsRevision: null,
      blocked: 'no-bank-details',
    },
  ],
  waiting: [],
  ...overrides,
});

describe('a pay run', () => {
  const prepare = (prepared: Prepared) => ({ type: 'PreparePayRun' as const, run: prepared, actor: admin });
  const paid = (date: string) => ({
    type: 'MarkPayRunPaid' as const,
    month: '2026-03',
    date,
    today: '2026-04-10',
    paymentIdOf: (statementId: string) => `pay-${statementId}`,
    leftOut: [],
    actor: admin,
  });
  const now = new Date();

  it('prepared again with nothing changed records nothing; with a change, the new lines', () => {
    const first = payRunDecider.decide(prepare(run()), payRunDecider.initialState(), now);
    const state = fold(payRunDecider, first);
    expect(payRunDecider.decide(prepare(run({ date: '2026-04-03' })), state, now)).toEqual([]);
    // As the store hands it back: the same payload, its keys in another order.
    const reversed = <T extends object>(value: T) => Object.fromEntries(Object.entries(value).reverse()) as T;
    const stored = fold(payRunDecider, [
      { type: 'PayRunPrepared' as const, data: reversed({ ...run(), lines: run().lines.map(reversed) }) },
    ]);
    expect(payRunDecider.decide(prepare(run()), stored, now)).toEqual([]);
    const changed = run({
      waiting: [{ tutorId: 't3', statementId: 't3-2026-03', month: '2026-03', reference: 'X', owedPence: 1 }],
    });
    expect(payRunDecider.decide(prepare(changed), state, now)).toHaveLength(1);
  });

  it('pays each statement of the lines with bank details, to the penny, once', () => {
    const state = fold(payRunDecider, payRunDecider.decide(prepare(run()), payRunDecider.initialState(), now));
    const events = payRunDecider.decide(paid('2026-04-05'), state, now);
    expect(events).toEqual([
      {
        type: 'PayRunPaid',
        data: {
          payRunId: '2026-03',
          month: '2026-03',
          date: '2026-04-05',
          payments: [
            {
              paymentId: 'pay-t1-2026-02',
              tutorId: 't1',
              statementId: 't1-2026-02',
              month: '2026-02',
              amountPence: 1_001,
            },
            {
              paymentId: 'pay-t1-2026-03',
              tutorId: 't1',
              statementId: 't1-2026-03',
              month: '2026-03',
              amountPence: 20_050,
            },
          ],
        },
      },
    ]);
    const after = fold(payRunDecider, [
      ...payRunDecider.decide(prepare(run()), payRunDecider.initialState(), now),
      ...events,
    ]);
    expect(payRunDecider.decide(paid('2026-04-06'), after, now)).toEqual([]);
    expect(() => payRunDecider.decide(prepare(run()), after, now)).toThrow(/was paid on 2026-04-05/);
  });

  it('refuses a line that does not add up, a statement twice, a day to come and anyone but an admin', () => {
    const line = run().lines[0];
    if (!line) throw new Error('no line');
    expect(() =>
      payRunDecider.decide(
        prepare(run({ lines: [{ ...line, amountPence: 21_050 }] })),
        payRunDecider.initialState(),
        now,
      ),
    ).toThrow(/what its statements still owe/);
    expect(() =>
      payRunDecider.decide(
        prepare(run({ lines: [line, { ...line, tutorId: 't9' }] })),
        payRunDecider.initialState(),
        now,
      ),
    ).toThrow(/paid once/);
    const state = fold(payRunDecider, payRunDecider.decide(prepare(run()), payRunDecider.initialState(), now));
    expect(() => payRunDecider.decide(paid('2026-04-11'), state, now)).toThrow(/once it is made/);
    expect(() => payRunDecider.decide({ ...paid('2026-04-05'), actor: { role: 'auditor' } }, state, now)).toThrow(
      /Only an admin/,
    );
  });
});
