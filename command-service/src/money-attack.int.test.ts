import { familyInvoice, payStatement } from '@agency/domain';
import { reactorsSettled } from '@agency/scripts/testing/reactors-settled';
import { startTestProduct, TEST_ADMIN, type TestProduct } from '@agency/scripts/testing/test-product';
import { contact, testRequests } from '@agency/scripts/testing/test-requests';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { lessonInvoiceIdOf } from './family-invoices/lesson-billing';

/** Half up to the penny for a positive value, half away from zero for a negative one: computed here, not by the product. */
const round = (value: number) => Math.sign(value) * Math.round(Math.abs(value));
const amountOf = (ratePence: number, hours: number) => round(ratePence * hours);
const vatOf = (netPence: number) => round(netPence * 0.2);
const payOf = (ratePence: number, hours: number, commissionPct: number) => {
  const amount = amountOf(ratePence, hours);
  return amount - round((amount * commissionPct) / 100);
};

/**
 * The money flows of docs/money-models.md attacked end to end through the routes, as the office
 * drives them, every figure checked to the penny against the computation above: a family with one
 * child whose tuition the agency sells (20 % VAT, a tutor's pay waiting for the family's payment)
 * and one introduced, a lesson recorded late after its month was billed and its pay statement
 * issued, a lesson changed after both, and the tutor paid by a pay run.
 */
describe('money attack: a late lesson and a late change through family invoices, pay statements and a pay run', () => {
  let product: TestProduct;
  let db: pg.Pool;
  let admin = '';
  let now = new Date('2026-02-10T12:00:00Z');
  const { ok, post, get } = testRequests(
    () => product,
    () => admin,
  );
  let tutorId = '';
  let clientId = '';
  const engagements = { ann: '', ben: '' };
  const lessons = { first: '', late: '', intro: '' };
  const ANN = { rate: 3010, commission: 15 };
  const BEN = { rate: 4000, commission: 20 };

  const store = () => product.command.deps.store;
  const lesson = async (engagementId: string, date: string, duration: number, id?: string) =>
    (
      await ok(`/api/lessons/lesson?month=${date.slice(0, 7)}`, {
        tutorId,
        lesson: { id, engagementId, date, duration },
      })
    ).lesson.id as string;
  const settled = () => reactorsSettled(db, 60_000);
  const bill = async (month: string) => {
    await ok('/api/family-invoices/lesson-billing', { month });
    await settled();
  };
  const invoiceOf = async (month: string) => {
    const [issued] = await store().readStream(familyInvoice.familyInvoiceStream(lessonInvoiceIdOf(clientId, month)));
    return issued?.data as familyInvoice.IssuedInvoice | undefined;
  };
  const payInFull = async (invoice: familyInvoice.IssuedInvoice, date: string) => {
    await ok('/api/family-invoices/payment', { invoiceId: invoice.invoiceId, date, amount: invoice.totalPence / 100 });
    await settled();
  };
  const prepareStatements = async (month: string) => {
    await ok('/api/pay-statements', { month });
    await settled();
  };
  const statementOf = async (month: string) => {
    const [issued] = await store().readStream(payStatement.payStatementStream(tutorId, month));
    return issued?.data as payStatement.IssuedStatement | undefined;
  };
  const linesOf = (statement: payStatement.IssuedStatement | undefined) =>
    (statement?.lines ?? []).map((line) => [line.kind, line.lessonId, line.linePence]);

  beforeAll(async () => {
    product = await startTestProduct({}, { clock: () => now });
    db = new pg.Pool({ connectionString: product.databaseUrl });
    admin = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
    await ok('/api/agency/money-model', {
      model: 'agency-sells-tuition',
      from: '2026-02',
      vatRate: 20,
      payAfterFamilyPays: true,
    });
    tutorId = (
      await ok('/api/tutors/contact', {
        contact: contact('Tia', 'Attack'),
        tutor: { username: 'tiaattack', invoicePrefix: 'TA', startDate: '2025-09-01' },
      })
    ).tutor.id;
    clientId = (await ok('/api/clients/contact', contact('Parent', 'Attack'))).client.id;
    for (const name of ['ann', 'ben'] as const) {
      const { child } = await ok(`/api/clients/child/${clientId}`, {
        firstName: name,
        lastName: 'Attack',
        dob: '2014-05-01',
      });
      const terms = name === 'ann' ? ANN : BEN;
      engagements[name] = (
        await ok('/api/tutors/engagement', {
          tutorId,
          studentId: child.id,
          rate: terms.rate / 100,
          commissionPct: terms.commission,
          partnerPct: 0,
          startDate: '2026-01-05',
          subjects: ['Maths'],
        })
      ).engagement.id;
    }
    // Ben's lessons are under the introduction model: the agency bills the family its fee, the tutor is not paid by it.
    await ok(`/api/engagements/money-model/${engagements.ben}`, { model: 'introduction', from: '2026-02' });
    lessons.first = await lesson(engagements.ann, '2026-02-03', 1.25);
    lessons.intro = await lesson(engagements.ben, '2026-02-05', 1);
  });
  afterAll(async () => {
    await db?.end();
    await product?.dispose();
  });

  it('bills February to the penny, and pays the tutor only for what the family paid', async () => {
    now = new Date('2026-03-02T12:00:00Z');
    await bill('2026-02');
    const february = await invoiceOf('2026-02');
    if (!february) throw new Error('February was not billed');
    const first = amountOf(ANN.rate, 1.25);
    const fee = round((BEN.rate * BEN.commission) / 100);
    expect(
      february.lines.map((line) => [line.lesson?.kind, line.lesson?.lessonId, line.amountPence, line.vatPence]),
    ).toEqual([
      ['tuition', lessons.first, first, vatOf(first)],
      ['introduction-fee', lessons.intro, fee, vatOf(fee)],
    ]);
    expect(february.totalPence).toBe(first + vatOf(first) + fee + vatOf(fee));
    await payInFull(february, '2026-03-03');

    // A lesson of February recorded after February was billed and paid.
    lessons.late = await lesson(engagements.ann, '2026-02-20', 1);
    await prepareStatements('2026-02');
    // The first lesson's family paid: it is paid. The late one no invoice bills yet: held.
    expect(linesOf(await statementOf('2026-02'))).toEqual([
      ['lesson', lessons.first, payOf(ANN.rate, 1.25, ANN.commission)],
      ['held', lessons.late, 0],
    ]);
  });

  it('bills the late lesson and the late change once as adjustments, and releases the late lesson’s pay once the family paid them', async () => {
    // After February's invoice and statement: the first lesson made 1.5 h.
    await lesson(engagements.ann, '2026-02-03', 1.5, lessons.first);
    now = new Date('2026-04-01T12:00:00Z');
    await bill('2026-03');
    const march = await invoiceOf('2026-03');
    if (!march) throw new Error('March was not billed');
    const change = amountOf(ANN.rate, 1.5) - amountOf(ANN.rate, 1.25);
    const late = amountOf(ANN.rate, 1);
    expect(
      march.lines.map((line) => [line.lesson?.kind, line.lesson?.lessonId, line.amountPence, line.vatPence]),
    ).toEqual([
      ['adjustment', lessons.first, change, vatOf(change)],
      ['adjustment', lessons.late, late, vatOf(late)],
    ]);
    expect(march.totalPence).toBe(change + vatOf(change) + late + vatOf(late));
    await payInFull(march, '2026-04-02');

    await prepareStatements('2026-03');
    // Everything the family was billed for is paid: the late lesson's pay is released, the change paid as an adjustment.
    expect(linesOf(await statementOf('2026-03'))).toEqual([
      ['adjustment', lessons.first, payOf(ANN.rate, 1.5, ANN.commission) - payOf(ANN.rate, 1.25, ANN.commission)],
      ['released', lessons.late, payOf(ANN.rate, 1, ANN.commission)],
    ]);

    // Nothing changed since: April bills nothing more and pays nothing more (never twice).
    now = new Date('2026-05-01T12:00:00Z');
    await bill('2026-04');
    expect(await invoiceOf('2026-04')).toBeUndefined();
    await prepareStatements('2026-04');
    expect(linesOf(await statementOf('2026-04'))).toEqual([]);
  });

  it('pays the tutor, through one pay run, exactly what the lessons sold earned less the agency’s share', async () => {
    for (const month of ['2026-02', '2026-03'])
      await ok('/api/pay-statements/confirm', { id: payStatement.payStatementId(tutorId, month) });
    await ok(`/api/tutors/bank-details/${tutorId}`, {
      accountName: 'Tia Attack',
      sortCode: '12-34-56',
      accountNumber: '12345678',
    });
    await ok('/api/pay-runs', { month: '2026-04' });
    await ok('/api/pay-runs/paid/2026-04', { date: '2026-05-01' });
    await settled();
    const owed = payOf(ANN.rate, 1.5, ANN.commission) + payOf(ANN.rate, 1, ANN.commission);
    const paid = [];
    for (const month of ['2026-02', '2026-03'])
      for (const event of await store().readStream(payStatement.payStatementStream(tutorId, month)))
        if (event.type === 'TutorPaymentRecorded') paid.push((event.data as { amountPence: number }).amountPence);
    expect(paid.reduce((sum, pence) => sum + pence, 0)).toBe(owed);
    // Marked paid again, or prepared again once paid: nothing more.
    expect((await post('/api/pay-runs/paid/2026-04', { date: '2026-05-01' })).statusCode).toBe(200);
    expect((await post('/api/pay-runs', { month: '2026-04' })).statusCode).toBe(409);
  });
  it('never lists a statement already on another month’s unpaid run while the pay-runs read model is stalled', async () => {
    const may = await lesson(engagements.ann, '2026-05-04', 1);
    now = new Date('2026-06-01T12:00:00Z');
    await bill('2026-05');
    const invoice = await invoiceOf('2026-05');
    if (!invoice) throw new Error('May was not billed');
    await payInFull(invoice, '2026-06-01');
    await prepareStatements('2026-05');
    expect(linesOf(await statementOf('2026-05'))).toEqual([['lesson', may, payOf(ANN.rate, 1, ANN.commission)]]);
    await ok('/api/pay-statements/confirm', { id: payStatement.payStatementId(tutorId, '2026-05') });
    const statementsOf = async (month: string) =>
      (await store().readStream(`pay-run-${month}`))
        .filter((event) => event.type === 'PayRunPrepared')
        .flatMap((event) => (event.data as { lines: { statements: { statementId: string }[] }[] }).lines)
        .flatMap((line) => line.statements.map((statement) => statement.statementId));

    // The pay-runs read model stops at May's run: the next run cannot see that May's holds the statement.
    await db.query("alter table read.pay_runs add constraint money_attack_stall check (id <> '2026-05')");
    try {
      await ok('/api/pay-runs', { month: '2026-05' });
      expect(await statementsOf('2026-05')).toEqual([payStatement.payStatementId(tutorId, '2026-05')]);
      const june = await post('/api/pay-runs', { month: '2026-06' });
      // Refused while it cannot know (a retry completes it), or prepared without the statement: never in two bank files.
      if (june.statusCode !== 200) expect(june.statusCode, june.body).toBe(503);
      expect(await statementsOf('2026-06')).toEqual([]);
    } finally {
      await db.query('alter table read.pay_runs drop constraint money_attack_stall');
    }
    // Resumed, June's run is prepared, and still leaves May's statement to May's run.
    await vi.waitFor(async () => expect((await post('/api/pay-runs', { month: '2026-06' })).statusCode).toBe(200), {
      timeout: 60_000,
      interval: 200,
    });
    expect(await statementsOf('2026-06')).toEqual([]);
  });
  it('bills a lesson recorded late once, even when its month is billed again after a later month billed it', async () => {
    // A family with nothing in April when April was billed: its April lesson is recorded late.
    const zed = (await ok('/api/clients/contact', contact('Parent', 'Zed'))).client.id as string;
    const { child } = await ok(`/api/clients/child/${zed}`, { firstName: 'Zoe', lastName: 'Zed', dob: '2014-05-01' });
    const { engagement } = await ok('/api/tutors/engagement', {
      tutorId,
      studentId: child.id,
      rate: ANN.rate / 100,
      commissionPct: ANN.commission,
      partnerPct: 0,
      startDate: '2026-01-05',
      subjects: ['Maths'],
    });
    const april = await lesson(engagement.id, '2026-04-15', 1);
    await bill('2026-06');
    // April asked for again (it is allowed: it issues only what is missing).
    await bill('2026-04');
    const billed = [];
    for (const month of ['2026-04', '2026-05', '2026-06']) {
      const [issued] = await store().readStream(familyInvoice.familyInvoiceStream(lessonInvoiceIdOf(zed, month)));
      for (const line of (issued?.data as familyInvoice.IssuedInvoice | undefined)?.lines ?? [])
        if (line.lesson?.lessonId === april) billed.push([month, line.lesson.kind, line.amountPence]);
    }
    expect(billed).toEqual([['2026-06', 'adjustment', amountOf(ANN.rate, 1)]]);
  });
  it('bills a lesson of the largest amount a timesheet takes, its VAT on top, and pays its tutor (the last test: a refusal here stops a reactor)', async () => {
    const big = (await ok('/api/clients/contact', contact('Parent', 'Big'))).client.id as string;
    const { child } = await ok(`/api/clients/child/${big}`, { firstName: 'Bo', lastName: 'Big', dob: '2014-05-01' });
    const { engagement } = await ok('/api/tutors/engagement', {
      tutorId,
      studentId: child.id,
      rate: 10_000,
      commissionPct: 15,
      partnerPct: 0,
      startDate: '2026-01-05',
      subjects: ['Maths'],
    });
    // £10,000 an hour for 10 hours: £100,000, the most a lesson may be worth; two of them.
    const lessonIds = [await lesson(engagement.id, '2026-06-01', 10), await lesson(engagement.id, '2026-06-02', 10)];
    await bill('2026-06');
    const [issued] = await store().readStream(familyInvoice.familyInvoiceStream(lessonInvoiceIdOf(big, '2026-06')));
    const invoice = issued?.data as familyInvoice.IssuedInvoice;
    expect(invoice.lines.map((line) => [line.lesson?.lessonId, line.amountPence, line.vatPence])).toEqual(
      lessonIds.map((id) => [id, 10_000_000, 2_000_000]),
    );
    expect(invoice.totalPence).toBe(24_000_000);

    // Paid in parts of at most £100,000; the tutor's June pay, £85,000 a lesson, is paid by one run.
    for (const amount of [100_000, 100_000, 40_000])
      await ok('/api/family-invoices/payment', { invoiceId: invoice.invoiceId, date: '2026-06-02', amount });
    await settled();
    await prepareStatements('2026-06');
    const pay = 2 * (10_000_000 - 1_500_000);
    expect((await statementOf('2026-06'))?.totalPayPence).toBe(pay);
    await ok('/api/pay-statements/confirm', { id: payStatement.payStatementId(tutorId, '2026-06') });
    now = new Date('2026-07-01T12:00:00Z');
    await ok('/api/pay-runs', { month: '2026-07' });
    await ok('/api/pay-runs/paid/2026-07', { date: '2026-07-01' });
    await settled();
    const payments = (await store().readStream(payStatement.payStatementStream(tutorId, '2026-06')))
      .filter((event) => event.type === 'TutorPaymentRecorded')
      .map((event) => (event.data as { amountPence: number }).amountPence);
    expect(payments).toEqual([pay]);
  });
  it('records as paid only what the bank file the admin paid held, when another admin prepared the run again meanwhile', async () => {
    const second = (
      await ok('/api/tutors/contact', {
        contact: contact('Uma', 'Attack'),
        tutor: { username: 'umaattack', invoicePrefix: 'UA', startDate: '2025-09-01' },
      })
    ).tutor.id as string;
    const fam = (await ok('/api/clients/contact', contact('Parent', 'Race'))).client.id as string;
    const { child } = await ok(`/api/clients/child/${fam}`, { firstName: 'Ray', lastName: 'Race', dob: '2014-05-01' });
    const { engagement } = await ok('/api/tutors/engagement', {
      tutorId: second,
      studentId: child.id,
      rate: 30,
      commissionPct: 10,
      partnerPct: 0,
      startDate: '2026-01-05',
      subjects: ['Maths'],
    });
    await ok(`/api/lessons/lesson?month=2026-07`, {
      tutorId: second,
      lesson: { engagementId: engagement.id, date: '2026-07-01', duration: 1 },
    });
    await ok(`/api/lessons/lesson?month=2026-07`, {
      tutorId,
      lesson: { engagementId: engagements.ann, date: '2026-07-01', duration: 1 },
    });
    now = new Date('2026-08-01T12:00:00Z');
    await bill('2026-07');
    for (const client of [fam, clientId]) {
      const [issued] = await store().readStream(
        familyInvoice.familyInvoiceStream(lessonInvoiceIdOf(client, '2026-07')),
      );
      await payInFull(issued?.data as familyInvoice.IssuedInvoice, '2026-08-01');
    }
    await prepareStatements('2026-07');
    await ok(`/api/tutors/bank-details/${second}`, {
      accountName: 'Uma Attack',
      sortCode: '12-34-56',
      accountNumber: '87654321',
    });
    await ok('/api/pay-statements/confirm', { id: payStatement.payStatementId(tutorId, '2026-07') });
    await ok('/api/pay-runs', { month: '2026-08' });
    // Admin A opens the run (one line with bank details) and pays its bank file at the bank.
    const seen = await vi.waitFor(async () => {
      const answer = await get('/api/pay-runs/2026-08');
      expect(answer.status).toBe(200);
      return answer.body as { lines: { blocked: string | null; statements: { statementId: string }[] }[] };
    });
    const statements = seen.lines
      .filter((line) => line.blocked === null)
      .flatMap((line) => line.statements.map((s) => s.statementId));
    expect(statements).toEqual([payStatement.payStatementId(tutorId, '2026-07')]);
    // Meanwhile Uma confirms, and admin B prepares the run again: its bank file now pays her too.
    await ok('/api/pay-statements/confirm', { id: payStatement.payStatementId(second, '2026-07') });
    await ok('/api/pay-runs', { month: '2026-08' });
    // Admin A marks paid the run they saw: refused, nothing recorded.
    const stale = await post('/api/pay-runs/paid/2026-08', { date: '2026-08-01', statements });
    expect(stale.statusCode, stale.body).toBe(409);
    expect((await store().readStream('pay-run-2026-08')).map((event) => event.type)).toEqual([
      'PayRunPrepared',
      'PayRunPrepared',
    ]);
    // Opened again, the run and its file pay both: marked paid, each statement is paid once.
    await ok('/api/pay-runs/paid/2026-08', {
      date: '2026-08-01',
      statements: [payStatement.payStatementId(tutorId, '2026-07'), payStatement.payStatementId(second, '2026-07')],
    });
    await settled();
    const paidTo = async (tutor: string) =>
      (await store().readStream(payStatement.payStatementStream(tutor, '2026-07'))).filter(
        (event) => event.type === 'TutorPaymentRecorded',
      ).length;
    expect([await paidTo(tutorId), await paidTo(second)]).toEqual([1, 1]);
  });
  it('prepares no month’s pay statements while the lessons read model that finds their tutors is stalled', async () => {
    const vic = (
      await ok('/api/tutors/contact', {
        contact: contact('Vic', 'Attack'),
        tutor: { username: 'vicattack', invoicePrefix: 'VA', startDate: '2025-09-01' },
      })
    ).tutor.id as string;
    const family = (await ok('/api/clients/contact', contact('Parent', 'Vee'))).client.id as string;
    const { child } = await ok(`/api/clients/child/${family}`, {
      firstName: 'Val',
      lastName: 'Vee',
      dob: '2014-05-01',
    });
    const { engagement } = await ok('/api/tutors/engagement', {
      tutorId: vic,
      studentId: child.id,
      rate: 30,
      commissionPct: 10,
      partnerPct: 0,
      startDate: '2026-01-05',
      subjects: ['Maths'],
    });
    // Vic's only lesson is one the lessons read model refuses: it stops there until it resumes.
    await db.query('alter table read.lessons add constraint money_attack_lessons check (duration_hundredths <> 123)');
    let refused = 0;
    try {
      const only = (
        await ok('/api/lessons/lesson?month=2026-08', {
          tutorId: vic,
          lesson: { engagementId: engagement.id, date: '2026-08-03', duration: 1.23 },
        })
      ).lesson.id as string;
      const august = await post('/api/pay-statements', { month: '2026-08' });
      // A month is prepared once: prepared now, it would leave Vic out of August for good.
      expect(august.statusCode, august.body).toBe(503);
      refused = (await store().readStream(payStatement.preparedStream())).filter(
        (event) => (event.data as { month: string }).month === '2026-08',
      ).length;
      expect(refused).toBe(0);
      await db.query('alter table read.lessons drop constraint money_attack_lessons');
      await vi.waitFor(
        async () => expect((await post('/api/pay-statements', { month: '2026-08' })).statusCode).toBe(200),
        {
          timeout: 60_000,
          interval: 200,
        },
      );
      await settled();
      const [issued] = await store().readStream(payStatement.payStatementStream(vic, '2026-08'));
      expect((issued?.data as payStatement.IssuedStatement | undefined)?.lines.map((line) => line.lessonId)).toEqual([
        only,
      ]);
    } finally {
      await db.query('alter table read.lessons drop constraint if exists money_attack_lessons');
    }
  });
});
