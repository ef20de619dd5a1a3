import { randomUUID } from 'node:crypto';
import type { PayStatementLine } from '@agency/contracts';
import { payRun, payStatement, todayIn } from '@agency/domain';
import { reactorsSettled } from '@agency/scripts/testing/reactors-settled';
import { type TestProduct, useTestProduct } from '@agency/scripts/testing/test-product';
import { contact, testRequests } from '@agency/scripts/testing/test-requests';
import type pg from 'pg';
import { describe, expect, it, vi } from 'vitest';
import { injectFaults } from '../race-points';
import { reactionContext } from '../reactors/reactor';
import { PAY_RUNS_REACTOR } from './pay-run-reactor';
import { payRunPaymentIdOf } from './pay-run-routes';

const ADMIN = { id: 'pay-run-test-admin', username: 'admin', role: 'admin' as const };
const MONTH = '2026-10';
const EARLIER = '2026-09';

/** A statement line of a lesson whose pay is its amount less the agency's share, to the penny. */
const lesson = (month: string, amountPence: number, sharePence: number): PayStatementLine => ({
  kind: 'lesson',
  lessonId: randomUUID(),
  lessonMonth: month,
  engagementId: 'e-1',
  studentId: 's-1',
  date: `${month}-15`,
  duration: 100,
  amountPence,
  sharePence,
  payPence: amountPence - sharePence,
  paidBeforePence: 0,
  linePence: amountPence - sharePence,
  removed: false,
});

describe('pay runs: bank details sealed and admins’ only, a run prepared once, its bank file, its payments once', () => {
  let product: TestProduct;
  let db: pg.Pool;
  let admin = '';
  useTestProduct((running) => {
    ({ product, db, admin } = running);
  });
  const requests = testRequests(
    () => product,
    () => admin,
  );
  const act = () => product.command.actAs(ADMIN, randomUUID()).context;
  const tutors: Record<'ann' | 'bo' | 'cy' | 'di', string> = { ann: '', bo: '', cy: '', di: '' };

  const newTutor = async (first: string, last: string) => {
    const { tutor } = await requests.ok('/api/tutors/contact', {
      contact: contact(first, last),
      tutor: { username: first.toLowerCase(), invoicePrefix: first.slice(0, 2).toUpperCase(), startDate: '2026-01-05' },
    });
    return tutor.id as string;
  };
  const issue = (tutorId: string, month: string, reference: string, lines: PayStatementLine[], confirm = true) =>
    (async () => {
      const stream = payStatement.payStatementStream(tutorId, month);
      await act().run(stream, payStatement.payStatementDecider, {
        type: 'IssuePayStatement',
        statement: {
          statementId: payStatement.payStatementId(tutorId, month),
          tutorId,
          month,
          reference,
          date: `${month}-28`,
          lines,
          carriedPence: 0,
        },
      });
      if (!confirm) return;
      const asTutor = product.command.actAs(
        { id: `u-${tutorId}`, username: 't', role: 'tutor', tutorId },
        randomUUID(),
      );
      await asTutor.context.run(stream, payStatement.payStatementDecider, {
        type: 'ConfirmPayStatement',
        actor: { role: 'tutor', tutorId },
      });
    })();
  const bankDetails = (tutorId: string, details: object) => requests.ok(`/api/tutors/bank-details/${tutorId}`, details);
  const eventsOf = async (streamId: string) => product.command.deps.store.readStream(streamId);
  const csv = async (month: string) => {
    const response = await fetch(`${product.url}/api/pay-runs/${month}/bank-file.csv`, {
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/csv/);
    return response.text();
  };

  it('seals every bank detail in the stored event, and shows them in full to admins only', async () => {
    tutors.ann = await newTutor('Ann', 'Smith');
    tutors.bo = await newTutor('Bo', 'Jones');
    tutors.cy = await newTutor('Cy', 'Erased');
    tutors.di = await newTutor('Di', 'Waits');
    await bankDetails(tutors.ann, { accountName: 'Ann Smith', sortCode: '01-23-45', accountNumber: '0012 3456' });
    await bankDetails(tutors.cy, {
      accountName: 'Cy Erased',
      sortCode: '65 43 21',
      accountNumber: '87654321',
      rollNumber: 'roll/42',
    });
    // The same details again record nothing.
    await bankDetails(tutors.ann, { accountName: 'Ann Smith', sortCode: '012345', accountNumber: '00123456' });
    expect(await eventsOf(payRun.bankDetailsStream(tutors.ann))).toHaveLength(1);

    const raw = await db.query<{ data: string }>(`select data::text as data from es.events where stream_id = $1`, [
      payRun.bankDetailsStream(tutors.ann),
    ]);
    expect(raw.rows).toHaveLength(1);
    const stored = raw.rows[0]?.data ?? '';
    for (const clear of ['012345', '00123456', 'Ann Smith']) expect(stored).not.toContain(clear);
    expect(JSON.parse(stored)).toMatchObject({
      tutorId: tutors.ann,
      sortCode: { $enc: 'v1' },
      accountNumber: { $enc: 'v1' },
    });

    const shown = await requests.get(`/api/tutors/bank-details/${tutors.ann}`);
    expect(shown).toEqual({
      status: 200,
      body: {
        tutorId: tutors.ann,
        bankDetails: { accountName: 'Ann Smith', sortCode: '01-23-45', accountNumber: '00123456', rollNumber: null },
        erased: false,
      },
    });
    expect((await requests.get(`/api/tutors/bank-details/${tutors.bo}`)).body).toEqual({
      tutorId: tutors.bo,
      bankDetails: null,
      erased: false,
    });
    // Bad input is refused, naming the field, and changes nothing.
    const bad = await requests.post(`/api/tutors/bank-details/${tutors.ann}`, {
      accountName: 'Ann Smith',
      sortCode: '12-345',
      accountNumber: '123',
    });
    expect(bad.statusCode).toBe(400);
    expect(Object.keys(bad.json().error.fields).sort()).toEqual(['accountNumber', 'sortCode']);
    expect((await requests.post(`/api/tutors/bank-details/${randomUUID()}`, shown.body.bankDetails)).statusCode).toBe(
      404,
    );
    expect(await eventsOf(payRun.bankDetailsStream(tutors.ann))).toHaveLength(1);
  });

  it('refuses every bank-detail and pay-run route to tutors (their own included), partners and auditors', async () => {
    const tokens = {
      tutor: await product.command.signSession({ id: 'u-ann', username: 'ann', role: 'tutor', tutorId: tutors.ann }),
      partner: await product.command.signSession({ id: 'u-bo', username: 'bo', role: 'partner', tutorId: tutors.bo }),
      auditor: await product.command.signSession({ id: 'u-aud', username: 'aud', role: 'auditor' }),
    };
    for (const [role, token] of Object.entries(tokens)) {
      const posts = [
        [
          `/api/tutors/bank-details/${tutors.ann}`,
          { accountName: 'Mallory', sortCode: '11-11-11', accountNumber: '11111111' },
        ],
        ['/api/pay-runs', { month: MONTH }],
        [`/api/pay-runs/paid/${MONTH}`, { date: '2026-11-01' }],
      ] as const;
      for (const [url, body] of posts) {
        expect((await requests.post(url, body, token)).statusCode, `${role} POST ${url}`).toBe(403);
      }
      for (const url of [
        `/api/tutors/bank-details/${tutors.ann}`,
        '/api/pay-runs',
        `/api/pay-runs/${MONTH}`,
        `/api/pay-runs/${MONTH}/bank-file.csv`,
      ]) {
        const response = await fetch(`${product.url}${url}`, { headers: { authorization: `Bearer ${token}` } });
        expect(response.status, `${role} GET ${url}`).toBe(403);
      }
    }
    expect(await eventsOf(payRun.bankDetailsStream(tutors.ann))).toHaveLength(1);
    expect(await eventsOf(payRun.payRunStream(MONTH))).toHaveLength(0);
  });

  it('prepares a month’s run once: confirmed statements still owed, to the penny; no bank details, erased, unconfirmed left out', async () => {
    // Ann: two months owed (3,125 + 2,083 and 4,001 pence); Bo: no bank details; Di: not confirmed.
    await issue(tutors.ann, EARLIER, 'PS-ANN-0926', [lesson(EARLIER, 4_167, 1_042), lesson(EARLIER, 2_778, 695)]);
    await issue(tutors.ann, MONTH, 'PS-ANN-1026', [lesson(MONTH, 5_335, 1_334)]);
    await issue(tutors.bo, MONTH, 'PS-BO-1026', [lesson(MONTH, 3_000, 750)]);
    await issue(tutors.cy, MONTH, 'PS-CY-1026', [lesson(MONTH, 2_001, 500)]);
    await issue(tutors.di, MONTH, 'PS-DI-1026', [lesson(MONTH, 1_000, 250)], false);

    const first = await requests.ok('/api/pay-runs', { month: MONTH });
    expect(first.payRun).toEqual({ payRunId: MONTH, month: MONTH, total: 107.1, tutors: 2, blocked: 1, waiting: 1 });
    // Prepared again with nothing changed: one event, the same run.
    const again = await requests.ok('/api/pay-runs', { month: MONTH });
    expect(again.payRun).toEqual(first.payRun);
    expect((await eventsOf(payRun.payRunStream(MONTH))).map((event) => event.type)).toEqual(['PayRunPrepared']);

    const { status, body } = await requests.get(`/api/pay-runs/${MONTH}`);
    expect(status).toBe(200);
    expect(body.total).toBe(107.1);
    const byName = Object.fromEntries(body.lines.map((line: { tutorName: string }) => [line.tutorName, line]));
    expect(byName['Ann Smith']).toMatchObject({
      amount: 92.09,
      account: '****3456',
      blocked: null,
      reference: 'PAY 2026-10',
      statements: [
        { statementId: payStatement.payStatementId(tutors.ann, EARLIER), owed: 52.08 },
        { statementId: payStatement.payStatementId(tutors.ann, MONTH), owed: 40.01 },
      ],
    });
    expect(byName['Bo Jones']).toMatchObject({ amount: 22.5, account: null, blocked: 'no-bank-details' });
    // The roll number is the tutor's sealed personal data: the run, recorded in clear, never holds it.
    expect(byName['Cy Erased']).toMatchObject({
      amount: 15.01,
      account: '****4321',
      blocked: null,
      reference: 'PS-CY-1026',
    });
    const stored = await db.query<{ data: string }>(`select data::text as data from es.events where stream_id = $1`, [
      payRun.payRunStream(MONTH),
    ]);
    expect(stored.rows[0]?.data).not.toMatch(/roll|654321|87654321/i);
    expect(body.waiting).toEqual([
      expect.objectContaining({ tutorName: 'Di Waits', reference: 'PS-DI-1026', owed: 7.5 }),
    ]);
    expect((await requests.get('/api/pay-runs')).body.runs).toEqual([
      { payRunId: MONTH, month: MONTH, preparedOn: body.preparedOn, paidOn: null, total: 107.1, tutors: 2, blocked: 1 },
    ]);

    // One row per tutor paid, in the order of their ids.
    const rows = [
      [tutors.ann, '"ANN SMITH","012345","00123456","92.09","PAY 2026-10"\r\n'],
      [tutors.cy, '"CY ERASED","654321","87654321","15.01","ROLL/42"\r\n'],
    ].sort(([a], [b]) => ((a as string) < (b as string) ? -1 : 1));
    expect(await csv(MONTH)).toBe(
      `"Name","Sort code","Account number","Amount","Reference"\r\n${rows.map(([, row]) => row).join('')}`,
    );
  });

  it('leaves a tutor erased since the run was prepared out of its bank file and its payments; their details read as erased', async () => {
    await requests.ok(`/api/tutors/active/${tutors.cy}`, { active: false, endDate: '2026-10-31' });
    await requests.ok(`/api/tutors/erase/${tutors.cy}`, { reason: 'Asked by the tutor', confirm: true });
    expect((await requests.get(`/api/tutors/bank-details/${tutors.cy}`)).body).toEqual({
      tutorId: tutors.cy,
      bankDetails: null,
      erased: true,
    });
    expect(await csv(MONTH)).toBe(
      '"Name","Sort code","Account number","Amount","Reference"\r\n' +
        '"ANN SMITH","012345","00123456","92.09","PAY 2026-10"\r\n',
    );
    const run = (await requests.get(`/api/pay-runs/${MONTH}`)).body;
    expect(run.lines.find((line: { tutorId: string }) => line.tutorId === tutors.cy)).toMatchObject({
      blocked: 'bank-details-erased',
      account: null,
    });
    // Their details cannot be recorded again.
    const refused = await requests.post(`/api/tutors/bank-details/${tutors.cy}`, {
      accountName: 'Cy',
      sortCode: '11-22-33',
      accountNumber: '12345678',
    });
    expect(refused.statusCode).toBe(409);
  });

  it('marks the run paid once: each statement paid once, only what it still owes, even after a crash half-way and a re-run', async () => {
    const earlier = payStatement.payStatementStream(tutors.ann, EARLIER);
    const later = payStatement.payStatementStream(tutors.ann, MONTH);
    // Part of September's statement was paid elsewhere since the run was prepared.
    await act().run(earlier, payStatement.payStatementDecider, {
      type: 'RecordTutorPayment',
      paymentId: 'paid-by-hand',
      payRunId: 'by-hand',
      date: '2026-11-01',
      amountPence: 1_000,
      actor: { role: 'admin' },
    });
    // Until the run is paid, its screen points the line out: its file would pay more than is owed now.
    await vi.waitFor(
      async () => {
        const lines = (await requests.get(`/api/pay-runs/${MONTH}`)).body.lines as {
          tutorId: string;
          paidElsewhere: boolean;
        }[];
        expect(lines.map((line) => [line.tutorId, line.paidElsewhere]).filter(([, flagged]) => flagged)).toEqual([
          [tutors.ann, true],
        ]);
      },
      { timeout: 60_000, interval: 50 },
    );
    // The reactor crashes right after recording its first payment, then runs the event again.
    let crashed = false;
    injectFaults({
      at: (fault) => {
        if (!crashed && fault.step === 'appended' && fault.streamId.startsWith('pay-statement-')) {
          crashed = true;
          throw new Error('crash after the first payment');
        }
      },
    });
    const today = todayIn('Europe/London', new Date());
    try {
      const paid = await requests.ok(`/api/pay-runs/paid/${MONTH}`, { date: today });
      expect(paid.payRun).toEqual({ payRunId: MONTH, month: MONTH, paidOn: today, payments: 2 });
      await reactorsSettled(db, 60_000);
    } finally {
      injectFaults(undefined);
    }
    expect(crashed).toBe(true);
    const payments = async (stream: string) =>
      (await eventsOf(stream))
        .filter((event) => event.type === 'TutorPaymentRecorded')
        .map((event) => {
          const { paymentId, amountPence } = event.data as { paymentId: string; amountPence: number };
          return { paymentId, amountPence };
        });
    const september = payStatement.payStatementId(tutors.ann, EARLIER);
    const october = payStatement.payStatementId(tutors.ann, MONTH);
    expect(await payments(earlier)).toEqual([
      { paymentId: 'paid-by-hand', amountPence: 1_000 },
      { paymentId: payRunPaymentIdOf(MONTH, september), amountPence: 4_208 },
    ]);
    expect(await payments(later)).toEqual([{ paymentId: payRunPaymentIdOf(MONTH, october), amountPence: 4_001 }]);
    // Cy (erased since) is not paid; Bo had no bank details.
    expect(await payments(payStatement.payStatementStream(tutors.cy, MONTH))).toEqual([]);
    expect(await payments(payStatement.payStatementStream(tutors.bo, MONTH))).toEqual([]);

    // The reactor handling the event again (a crash before its checkpoint moved) records nothing more.
    const reactor = product.command.reactors.reactors.find((found) => found.name === PAY_RUNS_REACTOR);
    if (!reactor) throw new Error('no pay-runs reactor');
    const [paidEvent] = (await eventsOf(payRun.payRunStream(MONTH))).filter((event) => event.type === 'PayRunPaid');
    if (!paidEvent) throw new Error('no PayRunPaid');
    await reactor.react(paidEvent, (key) => reactionContext(product.command.deps, PAY_RUNS_REACTOR, paidEvent, key));
    // Marked paid again, and prepared again: nothing changes.
    await requests.ok(`/api/pay-runs/paid/${MONTH}`, { date: today });
    expect((await requests.post('/api/pay-runs', { month: MONTH })).statusCode).toBe(409);
    expect((await eventsOf(payRun.payRunStream(MONTH))).map((event) => event.type)).toEqual([
      'PayRunPrepared',
      'PayRunPaid',
    ]);
    expect(await payments(earlier)).toHaveLength(2);
    expect(await payments(later)).toHaveLength(1);
    expect((await requests.get(`/api/pay-runs/${MONTH}`)).body.paidOn).toBe(today);

    // The next month's run: Bo, who could not be paid in October, now has bank details; Ann is paid
    // up; Cy, left out of October's payments when erased, is still owed and listed as not payable.
    await bankDetails(tutors.bo, { accountName: 'Bo Jones', sortCode: '20-00-00', accountNumber: '55779911' });
    const next = await requests.ok('/api/pay-runs', { month: '2026-11' });
    expect(next.payRun).toMatchObject({ total: 22.5, tutors: 1, blocked: 1, waiting: 1 });
    const november = (await requests.get('/api/pay-runs/2026-11')).body;
    expect(
      november.lines.map((line: { tutorId: string; blocked: string | null }) => [line.tutorId, line.blocked]).sort(),
    ).toEqual(
      [
        [tutors.bo, null],
        [tutors.cy, 'bank-details-erased'],
      ].sort(),
    );
    expect(await csv('2026-11')).toBe(
      '"Name","Sort code","Account number","Amount","Reference"\r\n"BO JONES","200000","55779911","22.50","PS-BO-1026"\r\n',
    );
  });

  it('never lists again what a paid run pays while its reactor has not recorded it yet', async () => {
    const eve = await newTutor('Eve', 'Pending');
    await bankDetails(eve, { accountName: 'Eve Pending', sortCode: '30-40-50', accountNumber: '11223344' });
    await issue(eve, '2026-07', 'PS-EVE-0726', [lesson('2026-07', 1_400, 400)]);
    await issue(eve, '2026-08', 'PS-EVE-0826', [lesson('2026-08', 2_600, 600)]);
    expect((await requests.ok('/api/pay-runs', { month: '2026-08' })).payRun).toMatchObject({ total: 30, tutors: 1 });
    // The reaction stalls right after recording July's payment: August's is still to record.
    let reached!: () => void;
    const stalled = new Promise<void>((resolve) => {
      reached = resolve;
    });
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    injectFaults({
      at: async (fault) => {
        if (fault.step === 'appended' && fault.streamId === payStatement.payStatementStream(eve, '2026-07')) {
          reached();
          await released;
        }
      },
    });
    try {
      const paying = requests.post('/api/pay-runs/paid/2026-08', { date: todayIn('Europe/London', new Date()) });
      await stalled;
      // November's run, prepared meanwhile, does not pay August's statement a second time.
      const november = (await requests.ok('/api/pay-runs', { month: '2026-11' })).payRun;
      const run = (await requests.get('/api/pay-runs/2026-11')).body;
      expect(run.lines.map((line: { tutorId: string }) => line.tutorId)).not.toContain(eve);
      expect(november.total).toBe(22.5);
      release();
      expect((await paying).statusCode).toBe(200);
      await reactorsSettled(db, 60_000);
    } finally {
      release();
      injectFaults(undefined);
    }
    const recorded = async (month: string) =>
      (await eventsOf(payStatement.payStatementStream(eve, month))).filter(
        (event) => event.type === 'TutorPaymentRecorded',
      );
    expect(await recorded('2026-07')).toHaveLength(1);
    expect(await recorded('2026-08')).toHaveLength(1);
  });
});
