import { randomUUID } from 'node:crypto';
import { engagement, familyInvoice, moneyModel, payStatement, timesheet } from '@agency/domain';
import { pdfText } from '@agency/scripts/testing/pdf-text';
import { reactorsSettled } from '@agency/scripts/testing/reactors-settled';
import { startTestProduct, TEST_ADMIN, type TestProduct } from '@agency/scripts/testing/test-product';
import { contact, testRequests } from '@agency/scripts/testing/test-requests';
import { verifyProduct } from '@agency/scripts/verify-store';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { injectFaults } from '../race-points';

const system = { id: 'pay-statement-test', username: 'pay-statement-test', role: 'admin' as const };
type Tutor = { id: string; engagementId: string; studentId: string; clientId: string; token: string; userId: string };

describe('pay statements: prepared once per tutor and month, held until the family pays, late changes, confirmation', () => {
  let product: TestProduct;
  let db: pg.Pool;
  let admin = '';
  let now = new Date('2026-02-02T12:00:00Z');
  const { post, ok, get } = testRequests(
    () => product,
    () => admin,
  );
  let ada: Tutor;
  let ben: Tutor;
  let cy: Tutor;
  const lessons: Record<string, string> = {};

  const act = () => product.command.actAs(system, randomUUID());
  const settle = async (appendedUpTo: () => unknown) => {
    const position = appendedUpTo();
    if (position) await product.command.deps.projections.waitFor(position as never);
  };
  const today = () => now.toISOString().slice(0, 10);
  const chooseTerms = async (from: string, payAfterFamilyPays: boolean) => {
    const { context, appendedUpTo } = act();
    await context.run(moneyModel.agencyModelStream(), moneyModel.agencyModelDecider, {
      type: 'ChooseAgencyMoneyModel',
      choice: { model: 'agency-sells-tuition', from, vatRateBp: 0, payAfterFamilyPays },
      today: today(),
      actor: { role: 'admin' },
    });
    await settle(appendedUpTo);
  };
  const newTutor = async (first: string, prefix: string, rate: number, commissionPct: number): Promise<Tutor> => {
    const { tutor } = await ok('/api/tutors/contact', {
      contact: contact(first, 'Payee'),
      tutor: { username: `${first}.payee`.toLowerCase(), invoicePrefix: prefix, startDate: '2025-09-01' },
    });
    const { client } = await ok('/api/clients/contact', contact('Parent', `Of${first}`));
    const { child } = await ok(`/api/clients/child/${client.id}`, {
      firstName: `Kid${first}`,
      lastName: `Of${first}`,
      dob: '2014-05-01',
    });
    const made = await ok('/api/tutors/engagement', {
      tutorId: tutor.id,
      studentId: child.id,
      rate,
      commissionPct,
      partnerPct: 0,
      startDate: '2025-09-01',
      subjects: ['Maths'],
    });
    const password = `Pay-${first}-pass-42`;
    const { user } = await ok('/api/users', {
      username: `${first}.login`.toLowerCase(),
      password,
      role: 'tutor',
      tutorId: tutor.id,
      name: first,
    });
    const token = await product.login(`${first}.login`.toLowerCase(), password);
    return {
      id: tutor.id,
      engagementId: made.engagement.id,
      studentId: child.id,
      clientId: client.id,
      token,
      userId: user.id,
    };
  };
  /** A timesheet command as the lessons routes run it, as an admin. */
  const onTimesheet = async (
    tutor: Tutor,
    date: string,
    command:
      | { type: 'RecordLesson' | 'ChangeLesson'; key: string; duration: number }
      | { type: 'RemoveLesson'; key: string },
  ) => {
    const { context, appendedUpTo } = act();
    const month = date.slice(0, 7);
    const stream = timesheet.timesheetStream(tutor.id, month);
    const actor = { role: 'admin' as const };
    lessons[command.key] ??= randomUUID();
    const lessonId = lessons[command.key] as string;
    if (command.type === 'RemoveLesson') {
      await context.run(stream, timesheet.timesheetDecider, {
        type: 'RemoveLesson',
        lessonId,
        tutorId: tutor.id,
        month,
        actor,
      });
    } else {
      const summary = engagement.summaryOf(
        await context.load(engagement.engagementStream(tutor.engagementId), engagement.engagementDecider),
      );
      await context.run(stream, timesheet.timesheetDecider, {
        type: command.type,
        lessonId,
        tutorId: tutor.id,
        month,
        engagement: summary!,
        date,
        duration: command.duration,
        actor,
      } as timesheet.TimesheetCommand);
    }
    await settle(appendedUpTo);
  };
  const prepare = (month: string, token = admin) => post('/api/pay-statements', { month }, token);
  const statementEvents = async (tutor: Tutor, month: string) =>
    (await product.command.deps.store.readStream(payStatement.payStatementStream(tutor.id, month))).map((e) => ({
      type: e.type,
      data: e.data,
    }));
  const issued = async (tutor: Tutor, month: string) => {
    const [first] = await statementEvents(tutor, month);
    return first?.data as payStatement.IssuedStatement;
  };
  const lineOf = (statement: payStatement.IssuedStatement, key: string) =>
    statement.lines
      .filter((line) => line.lessonId === lessons[key])
      .map((line) => [line.kind, line.payPence, line.paidBeforePence, line.linePence]);
  const eventCount = async () => Number((await db.query('select count(*) from es.events')).rows[0].count);

  beforeAll(async () => {
    product = await startTestProduct({}, { clock: () => now });
    db = new pg.Pool({ connectionString: product.databaseUrl });
    admin = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
    // Ada: £33.33 an hour at 17.5 %; Ben: £40 at 25 %.
    ada = await newTutor('Ada', 'ADA', 33.33, 17.5);
    ben = await newTutor('Ben', 'BEN', 40, 25);
    // Cy's engagement sells its tuition from February, a month before the agency's model does.
    cy = await newTutor('Cy', 'CY', 20, 10);
    const own = act();
    await own.context.run(moneyModel.engagementModelStream(cy.engagementId), moneyModel.engagementModelDecider, {
      type: 'ChooseEngagementMoneyModel',
      engagementId: cy.engagementId,
      choice: { model: 'agency-sells-tuition', from: '2026-02-01' },
      today: today(),
      actor: { role: 'admin' },
    });
    await settle(own.appendedUpTo);
    await onTimesheet(cy, '2026-02-16', { type: 'RecordLesson', key: 'cy1', duration: 100 });
    now = new Date('2026-03-02T12:00:00Z');
    await chooseTerms('2026-03-01', false);
    await onTimesheet(ada, '2026-03-03', { type: 'RecordLesson', key: 'ada1', duration: 125 });
    await onTimesheet(ada, '2026-03-10', { type: 'RecordLesson', key: 'ada2', duration: 100 });
    await onTimesheet(ben, '2026-03-05', { type: 'RecordLesson', key: 'ben1', duration: 150 });
    now = new Date('2026-04-01T09:00:00Z');
  });
  afterAll(async () => {
    injectFaults(undefined);
    await db?.end();
    await product?.dispose();
  });

  it('refuses bad input and anyone but an admin, writing nothing', async () => {
    const before = await eventCount();
    for (const [payload, field] of [
      [{ month: '2026-13' }, 'month'],
      [{ month: '' }, 'month'],
      [{}, 'month'],
      [{ month: 202603 }, 'month'],
    ] as const) {
      const response = await post('/api/pay-statements', payload);
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json().error).toMatchObject({
        code: expect.any(String),
        fields: { [field]: expect.any(String) },
      });
    }
    const future = await prepare('2026-05');
    expect(future.statusCode, future.body).toBe(400);
    expect((await prepare('2026-03', ada.token)).statusCode).toBe(403);
    expect((await post('/api/pay-statements/confirm', { id: '' }, ada.token)).statusCode).toBe(400);
    expect((await post('/api/pay-statements/confirm', { id: `${ada.id}-2026-03` }, admin)).statusCode).toBe(404);
    expect((await post('/api/pay-statements/confirm', { id: `${ada.id}-2026-03` }, ada.token)).statusCode).toBe(404);
    expect(await eventCount()).toBe(before);
  });

  it('issues one statement per tutor, to the penny, even after a crash half-way and a second preparation', async () => {
    // The reactor dies once right after appending Ada's statement, before Ben's: it runs the event again.
    const failed: string[] = [];
    injectFaults({
      at: (fault) => {
        if (fault.step === 'appended' && fault.streamId === payStatement.payStatementStream(ada.id, '2026-03')) {
          if (!failed.includes('ada')) {
            failed.push('ada');
            throw new Error('crash after Ada’s statement');
          }
        }
      },
    });
    const first = await prepare('2026-03');
    expect(first.statusCode, first.body).toBe(200);
    await reactorsSettled(db, 60_000);
    injectFaults(undefined);
    expect(failed).toEqual(['ada']);
    const second = await prepare('2026-03');
    expect(second.statusCode, second.body).toBe(200);
    expect(
      second.json().statements.map((s: { reference: string; totalPay: number }) => [s.reference, s.totalPay]),
    ).toEqual(
      expect.arrayContaining([
        ['PS-ADA-2026-03', 61.87],
        ['PS-BEN-2026-03', 45],
      ]),
    );
    await reactorsSettled(db, 60_000);
    expect((await statementEvents(ada, '2026-03')).map((e) => e.type)).toEqual(['PayStatementIssued']);
    expect((await statementEvents(ben, '2026-03')).map((e) => e.type)).toEqual(['PayStatementIssued']);
    expect(await product.command.deps.store.readStream(payStatement.preparedStream())).toHaveLength(1);
    // 1.25 h at £33.33 = £41.66 less 17.5 % (£7.29) = £34.37; 1 h = £33.33 less £5.83 = £27.50.
    const march = await issued(ada, '2026-03');
    expect(march.lines.map((l) => [l.kind, l.date, l.duration, l.amountPence, l.sharePence, l.payPence])).toEqual([
      ['lesson', '2026-03-03', 125, 4166, 729, 3437],
      ['lesson', '2026-03-10', 100, 3333, 583, 2750],
    ]);
    expect(march.totalPayPence).toBe(6187);
    expect((await issued(ben, '2026-03')).totalPayPence).toBe(4500);
    // Cy's February lesson, sold under the engagement's own model: £20.00 less 10 %.
    expect(lineOf(await issued(cy, '2026-03'), 'cy1')).toEqual([['lesson', 1800, 0, 1800]]);
    // An earlier month once a later one is prepared: refused, nothing written.
    const before = await eventCount();
    expect((await prepare('2026-02')).statusCode).toBe(409);
    expect(await eventCount()).toBe(before);
  });

  it('shows a tutor only their own statements; admins all; the read model holds what the streams say', async () => {
    const adaList = await vi.waitFor(
      async () => {
        const answer = await get('/api/pay-statements', ada.token);
        expect(answer.body.statements).toHaveLength(1);
        return answer.body.statements;
      },
      { timeout: 60_000, interval: 50 },
    );
    expect(adaList[0]).toMatchObject({
      id: `${ada.id}-2026-03`,
      reference: 'PS-ADA-2026-03',
      totalPay: 61.87,
      confirmed: false,
    });
    expect((await get(`/api/pay-statements?tutorId=${ben.id}`, ada.token)).status).toBe(403);
    expect((await get(`/api/pay-statements/${ben.id}-2026-03`, ada.token)).status).toBe(404);
    const all = await get('/api/pay-statements?month=2026-03');
    expect(all.body.statements.map((s: { reference: string }) => s.reference).sort()).toEqual([
      'PS-ADA-2026-03',
      'PS-BEN-2026-03',
      'PS-CY-2026-03',
    ]);
    const one = await get(`/api/pay-statements/${ada.id}-2026-03`, ada.token);
    expect(one.body.statement.lines[0]).toMatchObject({
      child: 'KidAda OfAda',
      hours: 1.25,
      amount: 41.66,
      share: 7.29,
      pay: 34.37,
    });
    const rows = await db.query(
      'select id, tutor_id, month, reference, total_pay_pence::int as total, confirmed, paid_pence::int as paid from read.pay_statements order by reference',
    );
    expect(rows.rows.map((r) => [r.reference, r.month, r.total, r.confirmed, r.paid])).toEqual([
      ['PS-ADA-2026-03', '2026-03', 6187, false, 0],
      ['PS-BEN-2026-03', '2026-03', 4500, false, 0],
      ['PS-CY-2026-03', '2026-03', 1800, false, 0],
    ]);
    const open = () =>
      fetch(`${product.url}/api/pay-statements/${ada.id}-2026-03/document.pdf`, {
        headers: { authorization: `Bearer ${ada.token}` },
      });
    const pdf = await open();
    expect(pdf.status).toBe(200);
    const bytes = Buffer.from(await pdf.arrayBuffer());
    const text = await pdfText(bytes);
    expect(text).toContain('PS-ADA-2026-03');
    expect(text).toContain('£61.87');
    expect(text).toContain('KidAda OfAda');
    // The statement as issued: it prints its content hash, and opening it again gives the same bytes.
    expect(text).toContain(`Document check: ${pdf.headers.get('x-content-hash')}`);
    expect(Buffer.from(await (await open()).arrayBuffer()).equals(bytes)).toBe(true);
  });

  it('lets the tutor confirm their own statement only (or an admin on their behalf); a login just turned off is refused', async () => {
    const id = `${ada.id}-2026-03`;
    expect((await post('/api/pay-statements/confirm', { id }, ben.token)).statusCode).toBe(403);
    const confirmed = await ok('/api/pay-statements/confirm', { id }, ada.token);
    expect(confirmed.statement).toMatchObject({ id, confirmed: true });
    await ok('/api/pay-statements/confirm', { id }, ada.token);
    expect((await statementEvents(ada, '2026-03')).map((e) => e.type)).toEqual([
      'PayStatementIssued',
      'PayStatementConfirmed',
    ]);

    await ok(`/api/users/active/${ben.userId}`, { active: false });
    const before = await eventCount();
    expect((await post('/api/pay-statements/confirm', { id: `${ben.id}-2026-03` }, ben.token)).statusCode).toBe(401);
    expect(await eventCount()).toBe(before);
    // An admin confirms on Ben's behalf.
    await ok('/api/pay-statements/confirm', { id: `${ben.id}-2026-03` });
    expect((await statementEvents(ben, '2026-03')).map((e) => e.type)).toEqual([
      'PayStatementIssued',
      'PayStatementConfirmed',
    ]);
  });

  it('pays a late change as an adjustment on the next statement, holds a lesson until its family pays, then releases it', async () => {
    now = new Date('2026-04-02T09:00:00Z');
    await chooseTerms('2026-04-01', true);
    // After March's statements: Ada's 10 March made 1.5 h, a lesson on 20 March recorded late, Ben's removed.
    await onTimesheet(ada, '2026-03-10', { type: 'ChangeLesson', key: 'ada2', duration: 150 });
    await onTimesheet(ada, '2026-03-20', { type: 'RecordLesson', key: 'ada3', duration: 100 });
    await onTimesheet(ben, '2026-03-05', { type: 'RemoveLesson', key: 'ben1' });
    await onTimesheet(ada, '2026-04-07', { type: 'RecordLesson', key: 'ada4', duration: 100 });
    const marchBefore = await statementEvents(ada, '2026-03');
    // The family is invoiced for April's lesson, not paid yet.
    const invoiceId = randomUUID();
    const { context, appendedUpTo } = act();
    await context.run(familyInvoice.familyInvoiceStream(invoiceId), familyInvoice.familyInvoiceDecider, {
      type: 'IssueFamilyInvoice',
      invoice: {
        invoiceId,
        reference: 'TST00001',
        date: '2026-05-01',
        dueDate: '2026-05-15',
        clientId: ada.clientId,
        billedFor: { kind: 'lessons', id: '2026-04' },
        billing: { name: 'Parent OfAda', address: ['1 High Street'], postcode: 'OX1 1AA', email: 'p@example.com' },
        lines: [
          {
            description: 'Lesson 7 April',
            amountPence: 3333,
            vatPence: 0,
            lesson: {
              lessonId: lessons.ada4,
              kind: 'tuition',
              model: 'agency-sells-tuition',
              date: '2026-04-07',
              tutorId: ada.id,
              studentId: ada.studentId,
              engagementId: ada.engagementId,
              duration: 100,
              ratePence: 3333,
              vatRateBp: 0,
            },
          },
        ],
      },
    } as never);
    await settle(appendedUpTo);

    now = new Date('2026-05-01T09:00:00Z');
    expect((await prepare('2026-04')).statusCode).toBe(200);
    await reactorsSettled(db, 60_000);
    const april = await issued(ada, '2026-04');
    // 1.5 h at £33.33 = £50.00 less £8.75 = £41.25, paid £27.50 before: +£13.75; 20 March: +£27.50.
    expect(lineOf(april, 'ada2')).toEqual([['adjustment', 4125, 2750, 1375]]);
    expect(lineOf(april, 'ada3')).toEqual([['adjustment', 2750, 0, 2750]]);
    expect(lineOf(april, 'ada4')).toEqual([['held', 2750, 0, 0]]);
    expect(april.totalPayPence).toBe(4125);
    const benApril = await issued(ben, '2026-04');
    expect(lineOf(benApril, 'ben1')).toEqual([['adjustment', 0, 4500, -4500]]);
    expect(benApril.totalPayPence).toBe(-4500);
    // Issued statements never change.
    expect(await statementEvents(ada, '2026-03')).toEqual(marchBefore);

    // The family pays; May's statement pays the held lesson, once.
    const paid = act();
    await paid.context.run(familyInvoice.familyInvoiceStream(invoiceId), familyInvoice.familyInvoiceDecider, {
      type: 'RecordFamilyPayment',
      paymentId: randomUUID(),
      date: '2026-05-20',
      amountPence: 3333,
      actor: { role: 'admin' },
    });
    await settle(paid.appendedUpTo);
    now = new Date('2026-06-01T09:00:00Z');
    expect((await prepare('2026-05')).statusCode).toBe(200);
    await reactorsSettled(db, 60_000);
    const may = await issued(ada, '2026-05');
    expect(may.lines.map((l) => [l.kind, l.lessonId, l.linePence])).toEqual([['released', lessons.ada4, 2750]]);
    expect(may.totalPayPence).toBe(2750);
    // Ben's balance owed to the agency is carried, and nothing is owed to him.
    const benMay = await issued(ben, '2026-05');
    expect([benMay.carriedPence, benMay.totalPayPence, benMay.lines]).toEqual([-4500, -4500, []]);
  });

  it('leaves npm run verify nothing to report: every statement stream folds and every statement re-renders as recorded', async () => {
    await reactorsSettled(db, 60_000);
    const readDb = new pg.Pool({ connectionString: product.databaseUrl, options: '-c search_path=read' });
    try {
      const report = await verifyProduct(db, readDb, product.command.deps.store, 'Europe/London');
      expect(report.differences).toEqual([]);
      // March, April and May for each tutor: six statements, each rebuilt and compared with its record.
      expect(report.documents.compared).toBeGreaterThanOrEqual(6);
      expect(report.documents.unrecorded).toBe(0);
    } finally {
      await readDb.end();
    }
  });
});
