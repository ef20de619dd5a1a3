import { randomUUID } from 'node:crypto';
import { commissionOf, engagement, lessonAmount, partnerCommissionOf, timesheet, todayIn } from '@agency/domain';
import { pdfText } from '@agency/scripts/testing/pdf-text';
import { startTestProduct, TEST_ADMIN, type TestProduct } from '@agency/scripts/testing/test-product';
import { contact, testRequests } from '@agency/scripts/testing/test-requests';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

type Json = Record<string, unknown>;
type Tutor = { id: string; prefix: string; name: string };
type Group = {
  group: number;
  heading: string;
  full: boolean;
  tutors: { tutorId: string; name: string; earnings: number; commission: number; partnerCommission: number }[];
  totals: { earnings: number; commission: number; partnerCommission: number };
};

const system = { id: 'invoice-test', username: 'invoice-test', role: 'admin' as const };
const pence = (pounds: number) => Math.round(pounds * 100);

describe('invoices: generation with the month lock, references, confirmation, payments, documents, report', () => {
  let product: TestProduct;
  let db: pg.Pool;
  let admin: string;
  let adaToken: string;
  let brookToken: string;
  let ada: Tutor;
  let brook: Tutor;
  let cleo: Tutor;
  let dan: Tutor;
  /** Engagement ids by tutor: two terms for Ada (25 % and 20 % commission), one for the others. */
  const engagements: Record<string, string[]> = {};

  const post = (url: string, payload: Json, token = admin) =>
    product.command.app.inject({ method: 'POST', url, payload, headers: { authorization: `Bearer ${token}` } });
  const { ok, get } = testRequests(
    () => product,
    () => admin,
  );
  const countEvents = async () => Number((await db.query('select count(*) from es.events')).rows[0].count);
  const streamLength = async (stream: string) =>
    Number((await db.query('select count(*) from es.events where stream_id = $1', [stream])).rows[0].count);

  const newTutor = async (first: string, last: string, prefix: string): Promise<Tutor> => {
    const { tutor } = await ok('/api/tutors/contact', {
      contact: contact(first, last),
      tutor: { username: `${first}${last}`.toLowerCase(), invoicePrefix: prefix, startDate: '2023-09-01' },
    });
    return { id: tutor.id, prefix, name: `${first} ${last}` };
  };
  const newChild = async (surname: string) => {
    const { client } = await ok('/api/clients/contact', contact('Parent', surname));
    const { child } = await ok(`/api/clients/child/${client.id}`, {
      firstName: 'Kid',
      lastName: surname,
      dob: '2012-05-01',
    });
    return child.id as string;
  };
  const engage = async (tutor: Tutor, rate: number, commissionPct: number, partnerPct: number) => {
    const { engagement: made } = await ok('/api/tutors/engagement', {
      tutorId: tutor.id,
      studentId: await newChild(`Of${tutor.prefix}${rate}`),
      rate,
      commissionPct,
      partnerPct,
      startDate: '2023-09-01',
      subjects: ['Maths'],
    });
    engagements[tutor.id] = [...(engagements[tutor.id] ?? []), made.id];
    return made.id as string;
  };

  /** Runs one timesheet command the way the lessons routes do, as an admin; waits for the read models. */
  const onTimesheet = async (
    tutorId: string,
    date: string,
    command:
      | { type: 'RecordLesson'; engagementId: string; duration?: number; amountPence?: number; lessonId?: string }
      | { type: 'ChangeLesson'; engagementId: string; lessonId: string; duration: number }
      | { type: 'RemoveLesson'; lessonId: string },
  ) => {
    const { context, appendedUpTo } = product.command.actAs(system, randomUUID());
    const month = date.slice(0, 7);
    const stream = timesheet.timesheetStream(tutorId, month);
    const actor = { role: 'admin' as const };
    if (command.type === 'RemoveLesson') {
      await context.run(stream, timesheet.timesheetDecider, { ...command, tutorId, month, actor });
    } else {
      const summary = engagement.summaryOf(
        await context.load(engagement.engagementStream(command.engagementId), engagement.engagementDecider),
      );
      await context.run(stream, timesheet.timesheetDecider, {
        ...command,
        lessonId: command.lessonId ?? randomUUID(),
        tutorId,
        month,
        engagement: summary!,
        date,
        actor,
      } as timesheet.TimesheetCommand);
    }
    const position = appendedUpTo();
    if (position) await product.command.deps.projections.waitFor(position);
  };
  const record = (tutor: Tutor, engagementId: string, date: string, duration = 100, amountPence?: number) =>
    onTimesheet(tutor.id, date, { type: 'RecordLesson', engagementId, duration, amountPence });

  const save = (tutorId: string, year: number, month: number, token = admin) =>
    post('/api/invoices/save', { commandId: randomUUID(), tutorId, year, month }, token);
  const generate = async (tutor: Tutor, year: number, month: number, token = admin) => {
    const response = await save(tutor.id, year, month, token);
    expect(response.statusCode, response.body).toBe(200);
    return response.json().invoice;
  };
  const report = async (year: number, month: number, token = admin) => {
    const answer = await get(`/api/reports/invoiceStatus?year=${year}&month=${month}`, token);
    expect(answer.status).toBe(200);
    return answer.body.groups as Group[];
  };
  const groupOf = (groups: Group[], tutor: Tutor) =>
    groups.filter((group) => group.tutors.some((t) => t.tutorId === tutor.id)).map((group) => group.group);

  beforeAll(async () => {
    product = await startTestProduct();
    db = new pg.Pool({ connectionString: product.databaseUrl });
    admin = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
    ada = await newTutor('Ada', 'Lovelace', 'AL');
    brook = await newTutor('Brook', 'Taylor', 'BT');
    cleo = await newTutor('Cleo', 'Patra', 'CP');
    dan = await newTutor('Dan', 'Dare', 'DD');
    await engage(ada, 40, 25, 10);
    await engage(ada, 45, 20, 10);
    await engage(brook, 30, 25, 0);
    await engage(cleo, 35.5, 15, 20);
    // Dan teaches too (months with no lessons are still invoiced), but no lesson is ever recorded.
    await engage(dan, 30, 25, 0);
    await ok('/api/users', {
      username: 'ada',
      password: 'ada-password-1',
      role: 'tutor',
      tutorId: ada.id,
      name: 'Ada',
    });
    await ok('/api/users', {
      username: 'brook',
      password: 'brook-password-1',
      role: 'partner',
      tutorId: brook.id,
      name: 'Brook',
    });
    adaToken = await product.login('ada', 'ada-password-1');
    brookToken = await product.login('brook', 'brook-password-1');
  });
  afterAll(async () => {
    await db?.end();
    await product?.dispose();
  });

  it('refuses bad input with 400 and field messages, an unknown tutor or invoice with 404, writing nothing', async () => {
    const before = await countEvents();
    const bad = await post('/api/invoices/save', { year: 2024, month: 13 });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatchObject({
      code: 'invalid_input',
      fields: { tutorId: 'Tutor is required', month: 'Month must be 1 to 12' },
    });
    expect((await post('/api/invoices/save', { tutorId: ada.id, year: 'soon', month: 1 })).statusCode).toBe(400);
    expect((await save(randomUUID(), 2024, 1)).statusCode).toBe(404);
    const future = await save(ada.id, new Date().getFullYear() + 1, 1);
    expect(future.statusCode).toBe(400);
    expect(future.json().error.message).toMatch(/has not started yet/);
    expect((await post('/api/invoices/confirm', {})).json().error.fields).toEqual({ id: 'Invoice is required' });
    expect((await post('/api/invoices/confirm', { id: 'nonsense' })).statusCode).toBe(404);
    expect((await post('/api/invoices/confirm', { id: `${ada.id}_2020-01` })).statusCode).toBe(404);
    const payment = await post('/api/invoices/payment', { invoiceId: `${ada.id}_2020-01`, date: 'x', amount: 0 });
    expect(payment.statusCode).toBe(400);
    expect(payment.json().error.fields).toMatchObject({ amount: 'Amount must be more than 0' });
    expect((await get('/api/invoices/?year=20x')).status).toBe(400);
    expect((await get('/api/reports/invoiceStatus?year=2024&month=0')).status).toBe(400);
    expect(await countEvents()).toBe(before);
  });

  it('invoices the current month only when asked to invoice it early, which locks the rest of it', async () => {
    const today = todayIn('Europe/London', new Date());
    const [year, month] = [Number(today.slice(0, 4)), Number(today.slice(5, 7))];
    const before = await countEvents();
    const refused = await save(cleo.id, year, month, admin);
    expect(refused.statusCode, refused.body).toBe(409);
    expect(refused.json().error).toMatchObject({
      code: 'conflict',
      message: expect.stringMatching(
        /has not ended yet: invoicing it now locks its lessons up to the end of the month/,
      ),
      fields: { month: 'Not ended yet' },
    });
    expect(await countEvents()).toBe(before);
    const early = await post('/api/invoices/save', {
      commandId: randomUUID(),
      tutorId: cleo.id,
      year,
      month,
      early: true,
    });
    expect(early.statusCode, early.body).toBe(200);
    expect(early.json().invoice.month).toBe(today.slice(0, 7));
    // Invoiced: asking again, early or not, answers with that invoice.
    const again = await save(cleo.id, year, month, admin);
    expect(again.json().invoice.reference).toBe(early.json().invoice.reference);
  });

  it('the invoice total equals the sum of its month’s lessons, for random lessons in random months', async () => {
    const months = fc.sample(fc.integer({ min: 1, max: 12 }), { numRuns: 40, seed: 7 });
    const unused = [...new Set(months)];
    let run = 0;
    const lesson = fc.record({
      day: fc.integer({ min: 1, max: 28 }),
      which: fc.integer({ min: 0, max: 1 }),
      duration: fc.integer({ min: 1, max: 12 }).map((quarters) => quarters * 25),
      amountPence: fc.option(fc.integer({ min: 0, max: 50_000 }), { nil: undefined }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(lesson, { minLength: 0, maxLength: 4 }), async (lessons) => {
        const month = unused[run++]!;
        const key = `2024-${String(month).padStart(2, '0')}`;
        const expected = { earnings: 0, commission: 0, partner: 0 };
        for (const l of lessons) {
          const date = `${key}-${String(l.day).padStart(2, '0')}`;
          await record(ada, engagements[ada.id]![l.which]!, date, l.duration, l.amountPence);
          const [rate, bp] = l.which === 0 ? [4000, 2500] : [4500, 2000];
          const amount = l.amountPence ?? lessonAmount(l.duration, rate);
          expected.earnings += amount;
          expected.commission += commissionOf(amount, bp);
          expected.partner += partnerCommissionOf(commissionOf(amount, bp), 1000);
        }
        const invoice = await generate(ada, 2024, month);
        const view = await db.query(
          `select coalesce(sum(amount_pence), 0)::int as earnings, coalesce(sum(commission_pence), 0)::int as commission
             from read.lessons where tutor_id = $1 and month = $2`,
          [ada.id, key],
        );
        expect(pence(invoice.earnings)).toBe(expected.earnings);
        expect(pence(invoice.commission)).toBe(expected.commission);
        expect(pence(invoice.partnerCommission)).toBe(expected.partner);
        expect(pence(invoice.earnings)).toBe(view.rows[0].earnings);
        expect(pence(invoice.totalCommission)).toBe(view.rows[0].commission);
        const items = invoice.items as { earnings: number; commission: number }[];
        expect(items.reduce((sum, item) => sum + pence(item.earnings), 0)).toBe(expected.earnings);
        expect(items.reduce((sum, item) => sum + pence(item.commission), 0)).toBe(expected.commission);
        const listed = await get(`/api/invoices/?year=2024&month=${month}&tutorId=${ada.id}`);
        expect(pence(listed.body.totals.commission)).toBe(expected.commission);
      }),
      { numRuns: Math.min(5, unused.length), seed: 11 },
    );
  });

  it('locks the month: no lesson of it can be recorded, changed or removed after generating', async () => {
    const [engagementId] = engagements[cleo.id]!;
    const lessonId = randomUUID();
    await onTimesheet(cleo.id, '2025-02-03', { type: 'RecordLesson', engagementId: engagementId!, lessonId });
    const invoice = await generate(cleo, 2025, 2);
    expect(invoice).toMatchObject({ earnings: 35.5, commission: 5.33, confirmed: false, locked: false });
    const lock = await db.query('select invoice_id from read.locked_months where tutor_id = $1 and month = $2', [
      cleo.id,
      '2025-02',
    ]);
    expect(lock.rows).toEqual([{ invoice_id: invoice.id }]);

    const before = await countEvents();
    const attempts = [
      () => onTimesheet(cleo.id, '2025-02-10', { type: 'RecordLesson', engagementId: engagementId! }),
      () =>
        onTimesheet(cleo.id, '2025-02-03', {
          type: 'ChangeLesson',
          engagementId: engagementId!,
          lessonId,
          duration: 200,
        }),
      () =>
        onTimesheet(cleo.id, '2025-02-03', {
          type: 'ChangeLesson',
          engagementId: engagementId!,
          lessonId,
          duration: 0,
        }),
      () => onTimesheet(cleo.id, '2025-02-03', { type: 'RemoveLesson', lessonId }),
    ];
    for (const attempt of attempts) {
      await expect(attempt()).rejects.toMatchObject({
        code: 'locked',
        message: expect.stringMatching(/February 2025/),
      });
    }
    // Through the lessons route too, as the grid and the tutor themselves would call it.
    const lessonCalls = [
      { engagementId, date: '2025-02-11', duration: 1 },
      { id: lessonId, engagementId, date: '2025-02-03', duration: 2 },
      { id: lessonId, engagementId, date: '2025-02-03', duration: 1, amount: 1 },
      { id: lessonId, engagementId, date: '2025-02-03', duration: 0 },
    ];
    for (const lesson of lessonCalls) {
      const response = await post('/api/lessons/lesson?month=2025-02', { tutorId: cleo.id, lesson });
      expect(response.statusCode, JSON.stringify(lesson)).toBe(409);
      expect(response.json().error).toMatchObject({ code: 'locked', message: expect.stringMatching(/February 2025/) });
    }
    expect(await countEvents()).toBe(before);
    const stillThere = await db.query('select amount_pence::int from read.lessons where id = $1', [lessonId]);
    expect(stillThere.rows).toEqual([{ amount_pence: 3550 }]);
    // The next month is open as ever.
    await onTimesheet(cleo.id, '2025-03-03', { type: 'RecordLesson', engagementId: engagementId! });
  });

  it('generating twice, even at the same moment, makes one invoice with one reference', async () => {
    await record(brook, engagements[brook.id]![0]!, '2025-01-06');
    const [first, second] = await Promise.all([save(brook.id, 2025, 1), save(brook.id, 2025, 1)]);
    expect([first!.statusCode, second!.statusCode]).toEqual([200, 200]);
    expect(first!.json().invoice).toEqual(second!.json().invoice);
    const again = await generate(brook, 2025, 1);
    expect(again.reference).toBe(first!.json().invoice.reference);
    expect(await streamLength(`invoice-${brook.id}-2025-01`)).toBe(1);
    expect(
      (await db.query('select count(*)::int as n from read.invoices where tutor_id = $1', [brook.id])).rows[0].n,
    ).toBe(1);
  });

  it('a repeat that appends nothing answers once the projections show the invoice it read', async () => {
    await record(brook, engagements[brook.id]![0]!, '2025-02-03');
    const first = await generate(brook, 2025, 2);
    const { projections, store } = product.command.deps;
    const last = (await store.readStream(`invoice-${brook.id}-2025-02`)).at(-1)!.position;
    const waitFor = projections.waitFor.bind(projections);
    const waited: unknown[] = [];
    projections.waitFor = (position, timeout, types) => {
      waited.push(position);
      return waitFor(position, timeout, types);
    };
    try {
      const again = await save(brook.id, 2025, 2);
      expect(again.statusCode).toBe(200);
      expect(again.json()).toMatchObject({ invoice: first, position: null, visible: true });
    } finally {
      projections.waitFor = waitFor;
    }
    // Not the time of the repeat: the position of what it read (the invoice, its tutor's engagements).
    expect(waited).toHaveLength(1);
    expect(waited[0]).toEqual(expect.objectContaining({ commit: expect.any(BigInt) }));
    expect((waited[0] as typeof last).commit >= last.commit).toBe(true);
  });

  it('never repeats a reference number for a tutor, whatever the order or concurrency of generation', async () => {
    await Promise.all([2, 3, 4, 5, 6].map((month) => save(dan.id, 2024, month)));
    await generate(dan, 2023, 11);
    const found = await db.query('select reference from read.invoices where tutor_id = $1', [dan.id]);
    const references = found.rows.map((row) => row.reference as string);
    expect(references).toHaveLength(6);
    expect(new Set(references).size).toBe(6);
    for (const reference of references) expect(reference).toMatch(/^DD\d{4}$/);
    const all = await db.query('select tutor_id, reference from read.invoices');
    const perTutor = new Set(all.rows.map((row) => `${row.tutor_id} ${row.reference}`));
    expect(perTutor.size).toBe(all.rows.length);
  });

  it('enforces who may generate, confirm, pay and read', async () => {
    const before = await countEvents();
    // A tutor for another tutor, a partner for another tutor: refused before the month is locked.
    expect((await save(cleo.id, 2024, 7, adaToken)).statusCode).toBe(403);
    expect((await save(ada.id, 2024, 7, brookToken)).statusCode).toBe(403);
    expect(await countEvents()).toBe(before);
    expect(await streamLength(`timesheet-${cleo.id}-2024-07`)).toBe(0);

    const own = await generate(ada, 2025, 4, adaToken);
    const partners = await generate(brook, 2025, 4, brookToken);
    const cleos = await generate(cleo, 2025, 4);
    // Confirmation: the invoice's tutor (a partner is one too, for their own invoice) or an admin.
    expect((await post('/api/invoices/confirm', { id: cleos.id }, adaToken)).statusCode).toBe(403);
    expect((await post('/api/invoices/confirm', { id: cleos.id }, brookToken)).statusCode).toBe(403);
    const confirmed = await ok('/api/invoices/confirm', { id: own.id }, adaToken);
    expect(confirmed.invoice).toMatchObject({ id: own.id, confirmed: true, locked: true });
    expect((await ok('/api/invoices/confirm', { id: partners.id }, brookToken)).invoice.confirmed).toBe(true);
    const confirmedAgain = await ok('/api/invoices/confirm', { id: own.id });
    // The same invoice; the admin's answer also carries the partner share the tutor's leaves out.
    expect(confirmed.invoice).not.toHaveProperty('partnerCommission');
    expect(confirmedAgain.invoice).toEqual({ ...confirmed.invoice, partnerCommission: expect.any(Number) });

    // Payments: admin only.
    const payment = { invoiceId: cleos.id, date: '2025-05-02', amount: '1.00' };
    expect((await post('/api/invoices/payment', payment, adaToken)).statusCode).toBe(403);
    expect((await post('/api/invoices/payment', payment, brookToken)).statusCode).toBe(403);

    // Reading: a tutor sees only their own invoices and documents, and not the report.
    const mine = await get('/api/invoices/?year=2025&month=4', adaToken);
    expect(mine.body.invoices.map((i: { id: string }) => i.id)).toEqual([own.id]);
    expect(mine.body.invoices[0]).not.toHaveProperty('partnerCommission');
    expect(mine.body.totals).not.toHaveProperty('partnerCommission');
    expect((await get(`/api/invoices/?year=2025&month=4&tutorId=${cleo.id}`, adaToken)).status).toBe(403);
    expect((await get(`/api/invoices/summary?year=2025&month=4&tutorId=${cleo.id}`, adaToken)).status).toBe(403);
    const cookie = (token: string) => ({ headers: { cookie: `token=${token}` } });
    expect((await fetch(`${product.url}/api/invoices/doc/${cleos.id}`, cookie(adaToken))).status).toBe(404);
    expect((await fetch(`${product.url}/api/invoices/doc/${own.id}`)).status).toBe(401);
    expect((await get('/api/reports/invoiceStatus?year=2025&month=4', adaToken)).status).toBe(403);
    // Admins and partners see everyone's, with the partner share.
    const staff = await get('/api/invoices/?year=2025&month=4', brookToken);
    expect(staff.body.invoices.map((i: { tutorName: string }) => i.tutorName)).toEqual([
      'Ada Lovelace',
      'Cleo Patra',
      'Brook Taylor',
    ]);
    expect(staff.body.invoices[0].partnerCommission).toEqual(expect.any(Number));
    expect((await get('/api/reports/invoiceStatus?year=2025&month=4', brookToken)).status).toBe(200);
  });

  it('lists a month’s invoices with the spec’s fields and totals, and a summary for the confirmation page', async () => {
    const [low, high] = engagements[ada.id]!;
    await record(ada, low!, '2025-06-02', 150);
    await record(ada, low!, '2025-06-09', 100);
    await record(ada, high!, '2025-06-10', 100, 5000);
    const invoice = await generate(ada, 2025, 6);
    const listed = await get('/api/invoices/?year=2025&month=6');
    expect(listed.body.invoices).toEqual([
      {
        id: invoice.id,
        tutorId: ada.id,
        month: '2025-06',
        period: 'June 2025',
        date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
        tutorName: 'Ada Lovelace',
        earnings: 150,
        commission: 35,
        partnerCommission: 3.5,
        reference: invoice.reference,
        paid: 0,
        confirmed: false,
        locked: false,
        void: false,
      },
    ]);
    expect(listed.body.totals).toEqual({ earnings: 150, commission: 35, partnerCommission: 3.5 });
    const summary = await get(`/api/invoices/summary?year=2025&month=6&tutorId=${ada.id}`, adaToken);
    expect(summary.body).toMatchObject({
      id: invoice.id,
      reference: invoice.reference,
      items: [
        { earnings: 50, commissionRate: 0.2, commission: 10, description: 'Earnings of £50.00 at 20% commission' },
        { earnings: 100, commissionRate: 0.25, commission: 25, description: 'Earnings of £100.00 at 25% commission' },
      ],
      totalCommission: 35,
      confirmed: false,
      locked: false,
    });
    expect((await get(`/api/invoices/summary?year=2025&month=8&tutorId=${ada.id}`)).status).toBe(404);
    // One shape for one invoice: the save's answer, the invoice by id and the summary are the same view.
    const byId = await get(`/api/invoices/${invoice.id}`);
    expect(byId.body).toEqual({ invoice });
    expect((await get(`/api/invoices/summary?year=2025&month=6&tutorId=${ada.id}`)).body).toEqual(invoice);
    expect(invoice).toMatchObject({ tutorName: 'Ada Lovelace', period: 'June 2025', month: '2025-06', paid: 0 });
    const own = await get(`/api/invoices/${invoice.id}`, adaToken);
    expect(own.body.invoice).toEqual(summary.body);
    expect(own.body.invoice).not.toHaveProperty('partnerCommission');
    expect((await get(`/api/invoices/${invoice.id}`, brookToken)).status).toBe(200);
    expect((await get(`/api/invoices/${ada.id}_2025-08`)).status).toBe(404);
    // The whole year, and every tutor: June is among them.
    const year = await get('/api/invoices?year=2025');
    expect(year.body.invoices.map((i: { id: string }) => i.id)).toContain(invoice.id);
  });

  it('serves a real PDF with the reference, dates, tutor, agency, items and totals; the cookie alone opens it', async () => {
    const invoice = await generate(ada, 2025, 6);
    const response = await fetch(`${product.url}/api/invoices/doc/${invoice.id}`, {
      headers: { cookie: `token=${adaToken}` },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    const bytes = new Uint8Array(await response.arrayBuffer());
    expect(Buffer.from(bytes.subarray(0, 5)).toString()).toBe('%PDF-');
    const text = pdfText(bytes);
    for (const shown of [
      'INVOICE',
      invoice.reference,
      'June 2025',
      'Ada Lovelace',
      'Oxford Tutoring Agency Ltd',
      'Earnings of £50.00 at 20% commission',
      'Earnings of £100.00 at 25% commission',
      '£150.00',
      'Total Commission',
      '£35.00',
      'Sort code',
    ]) {
      expect(text).toContain(shown);
    }
    expect(
      (await fetch(`${product.url}/api/invoices/doc/${randomUUID()}`, { headers: { cookie: `token=${admin}` } }))
        .status,
    ).toBe(404);
  });

  it('puts each tutor in exactly one report group, and moves a tutor to paid when a payment is recorded', async () => {
    // September 2025: Ada paid, Brook invoiced not paid, Cleo lessons without an invoice, Dan nothing.
    await record(ada, engagements[ada.id]![0]!, '2025-09-01');
    await record(brook, engagements[brook.id]![0]!, '2025-09-02', 200);
    await record(cleo, engagements[cleo.id]![0]!, '2025-09-03');
    const adas = await generate(ada, 2025, 9);
    const brooks = await generate(brook, 2025, 9);
    await ok('/api/invoices/payment', { invoiceId: adas.id, date: '2025-10-01', amount: adas.commission });

    const groups = await report(2025, 9);
    expect(groups.map((g) => [g.group, g.heading, g.full])).toEqual([
      [0, 'No lessons entered', false],
      [1, 'Lessons entered but invoice not created', true],
      [2, 'Invoice created but not paid', true],
      [3, 'Invoice created and paid', true],
    ]);
    expect(groupOf(groups, dan)).toEqual([0]);
    expect(groupOf(groups, cleo)).toEqual([1]);
    expect(groupOf(groups, brook)).toEqual([2]);
    expect(groupOf(groups, ada)).toEqual([3]);
    expect(groups[1]!.tutors).toEqual([
      { tutorId: cleo.id, name: 'Cleo Patra', earnings: 35.5, commission: 5.33, partnerCommission: 1.07 },
    ]);
    for (const group of groups) {
      const sum = (pick: (t: Group['tutors'][number]) => number) =>
        group.tutors.reduce((total, t) => total + pence(pick(t)), 0);
      expect(pence(group.totals.earnings)).toBe(sum((t) => t.earnings));
      expect(pence(group.totals.commission)).toBe(sum((t) => t.commission));
    }

    await ok('/api/invoices/payment', { invoiceId: brooks.id, date: '2025-10-02', amount: 5 });
    const after = await report(2025, 9);
    expect(groupOf(after, brook)).toEqual([3]);
    expect(after.map((g) => g.group)).toEqual([0, 1, 3]);
    const listed = await get(`/api/invoices/?year=2025&month=9&tutorId=${brook.id}`);
    expect(listed.body.invoices[0].paid).toBe(5);
  });

  it('every tutor working in a month appears in exactly one group, in every month tested', async () => {
    const tutors = [ada, brook, cleo, dan];
    for (const [year, month] of [
      [2024, 1],
      [2024, 6],
      [2025, 1],
      [2025, 2],
      [2025, 4],
      [2025, 9],
      [2023, 8],
    ] as const) {
      const groups = await report(year, month);
      const listed = groups.flatMap((group) => group.tutors.map((t) => t.tutorId));
      expect(new Set(listed).size, `${year}-${month}`).toBe(listed.length);
      const expected = year === 2023 && month === 8 ? [] : tutors.map((t) => t.id);
      expect([...listed].sort()).toEqual([...expected].sort());
      for (const group of groups) expect(group.tutors.length).toBeGreaterThan(0);
    }
  });

  it('confirms a month with no lessons as no lessons; it counts as settled in the report', async () => {
    const empty = await generate(dan, 2025, 8);
    expect(empty).toMatchObject({ items: [], earnings: 0, totalCommission: 0 });
    const payment = await post('/api/invoices/payment', { invoiceId: empty.id, date: '2025-09-01', amount: 1 });
    expect(payment.statusCode).toBe(400);
    expect((await ok('/api/invoices/confirm', { id: empty.id })).invoice.confirmed).toBe(true);
    expect(groupOf(await report(2025, 8), dan)).toEqual([3]);
  });
});
