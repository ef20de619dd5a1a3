import { randomUUID } from 'node:crypto';
import { invoice, moneyModel } from '@agency/domain';
import { startTestProduct, TEST_ADMIN, type TestProduct } from '@agency/scripts/testing/test-product';
import { contact, testRequests } from '@agency/scripts/testing/test-requests';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

/**
 * Settings → Money model and an engagement's own (docs/money-models.md): the routes, the read
 * model's `money_model_on`, and the tutor's commission invoice billing only the lessons under the
 * spec's model. The clock starts in February 2026 and moves to April, so choices made "ahead"
 * apply to March.
 */
describe('money models: choices, the read model and the commission invoice under mixed models', () => {
  let product: TestProduct;
  let db: pg.Pool;
  let admin = '';
  let tutorToken = '';
  let now = new Date('2026-02-10T12:00:00Z');
  const { post, ok, get } = testRequests(
    () => product,
    () => admin,
  );
  let tutorId = '';
  /** plain: the agency's model; own: its own model (the spec's) from March; intro: introduction from February. */
  const engagements = { plain: '', own: '', intro: '' };

  const countEvents = async () => Number((await db.query('select count(*) from es.events')).rows[0].count);
  const engage = async (surname: string, rate: number, commissionPct: number, partnerPct: number) => {
    const { client } = await ok('/api/clients/contact', contact('Parent', surname));
    const { child } = await ok(`/api/clients/child/${client.id}`, {
      firstName: 'Kid',
      lastName: surname,
      dob: '2012-05-01',
    });
    const { engagement } = await ok('/api/tutors/engagement', {
      tutorId,
      studentId: child.id,
      rate,
      commissionPct,
      partnerPct,
      startDate: '2025-09-01',
      subjects: ['Maths'],
    });
    return engagement.id as string;
  };
  const lesson = (engagementId: string, date: string, duration: number) =>
    ok(`/api/lessons/lesson?month=${date.slice(0, 7)}`, { tutorId, lesson: { engagementId, date, duration } });
  const generated = async (month: string) =>
    (await product.command.deps.store.readStream(invoice.invoiceStream(tutorId, month)))
      .filter((event) => event.type === 'InvoiceGenerated')
      .map((event) => event.data);
  const modelOn = async (engagementId: string, date: string) =>
    (await db.query('select read.money_model_on($1, $2::date) as model', [engagementId, date])).rows[0].model;

  beforeAll(async () => {
    product = await startTestProduct({}, { clock: () => now });
    db = new pg.Pool({ connectionString: product.databaseUrl });
    admin = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
    const { tutor } = await ok('/api/tutors/contact', {
      contact: contact('Mona', 'Model'),
      tutor: { username: 'monamodel', invoicePrefix: 'MM', startDate: '2025-09-01' },
    });
    tutorId = tutor.id;
    await ok('/api/users', { username: 'mona', password: 'mona-password-1', role: 'tutor', tutorId, name: 'Mona' });
    tutorToken = await product.login('mona', 'mona-password-1');
    engagements.plain = await engage('Plain', 40, 25, 10);
    engagements.own = await engage('Own', 35.5, 15, 20);
    engagements.intro = await engage('Intro', 30, 20, 0);
  });
  afterAll(async () => {
    await db?.end();
    await product?.dispose();
  });

  it('refuses bad input, a past month and a non-admin with 4xx, writing nothing', async () => {
    const before = await countEvents();
    const bad = await post('/api/agency/money-model', { model: 'barter', from: '2026-13', vatRate: 'x' });
    expect(bad.statusCode).toBe(400);
    expect(Object.keys(bad.json().error.fields).sort()).toEqual(['from', 'model', 'vatRate']);
    const vat = await post('/api/agency/money-model', { model: 'agency-sells-tuition', from: '2026-03', vatRate: 17 });
    expect(vat.statusCode).toBe(400);
    expect(vat.json().error.fields).toEqual({ vatRate: 'VAT is exempt (0 %) or the standard rate (20 %)' });
    const past = await post('/api/agency/money-model', { model: 'introduction', from: '2026-01', vatRate: 0 });
    expect(past.statusCode).toBe(400);
    expect(past.json().error.fields).toEqual({ from: 'A money model cannot apply to a month before this one' });
    const pastOwn = await post(`/api/engagements/money-model/${engagements.own}`, { model: null, from: '2026-01' });
    expect(pastOwn.statusCode).toBe(400);
    expect(
      (await post(`/api/engagements/money-model/${randomUUID()}`, { model: null, from: '2026-03' })).statusCode,
    ).toBe(404);
    const asTutor = { model: 'introduction', from: '2026-03', vatRate: 0 };
    expect((await post('/api/agency/money-model', asTutor, tutorToken)).statusCode).toBe(403);
    const ownAsTutor = { model: 'introduction', from: '2026-03' };
    expect((await post(`/api/engagements/money-model/${engagements.own}`, ownAsTutor, tutorToken)).statusCode).toBe(
      403,
    );
    expect((await get('/api/agency/money-model', tutorToken)).status).toBe(403);
    expect(await countEvents()).toBe(before);
  });

  it('records the choices once (a retry answers the same), and the read model says which applies when', async () => {
    const commandId = randomUUID();
    const choice = {
      commandId,
      model: 'agency-sells-tuition',
      from: '2026-03',
      vatRate: '20',
      payAfterFamilyPays: true,
    };
    const first = await post('/api/agency/money-model', choice);
    expect(first.statusCode, first.body).toBe(200);
    const again = await post('/api/agency/money-model', choice);
    expect(again.json()).toEqual(first.json());
    expect(await product.command.deps.store.readStream(moneyModel.agencyModelStream())).toHaveLength(1);
    await ok(`/api/engagements/money-model/${engagements.own}`, { model: 'tutor-pays-commission', from: '2026-03' });
    await ok(`/api/engagements/money-model/${engagements.intro}`, { model: 'introduction', from: '2026-02' });

    expect((await get('/api/agency/money-model?on=2026-02-10')).body).toEqual({
      today: '2026-02-10',
      inForce: { from: null, model: 'tutor-pays-commission', vatRate: 0, payAfterFamilyPays: false },
      upcoming: [{ from: '2026-03-01', model: 'agency-sells-tuition', vatRate: 20, payAfterFamilyPays: true }],
      choices: [{ from: '2026-03-01', model: 'agency-sells-tuition', vatRate: 20, payAfterFamilyPays: true }],
    });
    expect(
      (await get(`/api/engagements/money-model/${engagements.plain}?on=2026-02-10`, tutorToken)).body,
    ).toMatchObject({
      inForce: { model: 'tutor-pays-commission', own: false },
      upcoming: [{ from: '2026-03-01', model: 'agency-sells-tuition', own: false }],
    });
    // Its own model from March keeps it on the spec's model: nothing changes for it then.
    expect((await get(`/api/engagements/money-model/${engagements.own}?on=2026-02-10`)).body).toMatchObject({
      inForce: { model: 'tutor-pays-commission', own: false },
      upcoming: [{ from: '2026-03-01', model: 'tutor-pays-commission', own: true }],
      choices: [{ from: '2026-03-01', model: 'tutor-pays-commission' }],
    });
    expect(await modelOn(engagements.plain, '2026-02-28')).toBe('tutor-pays-commission');
    expect(await modelOn(engagements.plain, '2026-03-01')).toBe('agency-sells-tuition');
    expect(await modelOn(engagements.own, '2026-03-15')).toBe('tutor-pays-commission');
    expect(await modelOn(engagements.intro, '2026-02-01')).toBe('introduction');
    expect((await db.query(`select * from read.money_terms_on('2026-04-01')`)).rows[0]).toEqual({
      model: 'agency-sells-tuition',
      vat_rate_bp: 2000,
      pay_after_family_pays: true,
    });
  });

  it("bills the tutor commission only on lessons under the spec's model on their date, to the penny", async () => {
    now = new Date('2026-04-05T12:00:00Z');
    await lesson(engagements.plain, '2026-02-10', 1);
    await lesson(engagements.intro, '2026-02-11', 1);
    await lesson(engagements.plain, '2026-03-02', 1);
    await lesson(engagements.own, '2026-03-03', 1.25);
    await lesson(engagements.own, '2026-03-04', 0.75);
    await lesson(engagements.intro, '2026-03-05', 1);
    // The confirmation page's preview, before generation, bills what the invoice will, and names the rest.
    expect((await get(`/api/invoices/preview?year=2026&month=3&tutorId=${tutorId}`)).body).toMatchObject({
      lessonCount: 2,
      earnings: 71.01,
      totalCommission: 10.65,
      notOnInvoice: [
        { model: 'agency-sells-tuition', lessonCount: 1, earnings: 40 },
        { model: 'introduction', lessonCount: 1, earnings: 30 },
      ],
    });
    await ok('/api/invoices/save', { tutorId, year: 2026, month: 2 });
    await ok('/api/invoices/save', { tutorId, year: 2026, month: 3 });
    // February: the plain engagement's hour at £40, 25 % (10 % of it the partner's); the
    // introduction's hour is the agency's fee to the family, not on the tutor's invoice.
    expect(await generated('2026-02')).toMatchObject([
      {
        lessonCount: 1,
        earningsPence: 4000,
        commissionPence: 1000,
        partnerCommissionPence: 100,
        items: [{ commissionBp: 2500, earningsPence: 4000, commissionPence: 1000 }],
      },
    ]);
    // March: only the engagement with the spec's model of its own: 1.25 h and 0.75 h at £35.50
    // (£44.38 and £26.63, half up), 15 % each (£6.66 + £3.99), the partner 20 % of each (£1.33 + £0.80).
    expect(await generated('2026-03')).toMatchObject([
      {
        lessonCount: 2,
        earningsPence: 7101,
        commissionPence: 1065,
        partnerCommissionPence: 213,
        items: [{ commissionBp: 1500, earningsPence: 7101, commissionPence: 1065 }],
      },
    ]);
    // The screens say which model each lesson and the tutor's month is under.
    const listed = (await get(`/api/lessons?year=2026&month=3&tutorId=${tutorId}`)).body.lessons as {
      engagementId: string;
      model?: string;
    }[];
    expect(Object.fromEntries(listed.map((row) => [row.engagementId, row.model ?? 'absent']))).toEqual({
      [engagements.plain]: 'agency-sells-tuition',
      [engagements.own]: 'absent',
      [engagements.intro]: 'introduction',
    });
    const report = (await get('/api/reports/invoiceStatus?year=2026&month=3')).body;
    const row = report.groups.flatMap((group: { tutors: { tutorId: string }[] }) => group.tutors);
    expect(row.find((tutor: { tutorId: string }) => tutor.tutorId === tutorId)).toMatchObject({
      earnings: 71.01,
      commission: 10.65,
      partnerCommission: 2.13,
      models: ['agency-sells-tuition', 'introduction', 'tutor-pays-commission'],
    });
    const invoices = (await get(`/api/invoices?year=2026&tutorId=${tutorId}`)).body.invoices;
    expect(invoices.map((row: { month: string; models?: string[] }) => [row.month, row.models])).toEqual([
      ['2026-02', ['introduction', 'tutor-pays-commission']],
      ['2026-03', ['agency-sells-tuition', 'introduction', 'tutor-pays-commission']],
    ]);
    // The lessons under the other models keep their commission and the partner's share.
    const shares = await db.query(
      `select engagement_id, commission_pence, partner_commission_pence from read.lessons
        where tutor_id = $1 and month = '2026-03' and engagement_id <> $2 order by engagement_id = $3`,
      [tutorId, engagements.own, engagements.intro],
    );
    expect(shares.rows.map((row) => [Number(row.commission_pence), Number(row.partner_commission_pence)])).toEqual([
      [1000, 100],
      [600, 0],
    ]);
  });

  it('a reaction that runs after a later choice still invoices as the models stood at the lock', async () => {
    await lesson(engagements.own, '2026-04-02', 1);
    await product.command.reactors.stop();
    try {
      const early = await post('/api/invoices/save', { tutorId, year: 2026, month: 4, early: true });
      expect(early.json().error?.code, early.body).toBe('under_way');
      // A choice for the month it locked is refused now, writing nothing …
      const refused = await post(`/api/engagements/money-model/${engagements.own}`, {
        model: 'introduction',
        from: '2026-04',
      });
      expect(refused.statusCode).toBe(409);
      expect(refused.json().error.fields).toEqual({ from: 'This month is invoiced already' });
      // … but one recorded in the moment between the generation's check and its lock (appended
      // here as that race would) must not change what the lock invoices either.
      await product.command
        .actAs({ id: 'race', username: 'race', role: 'admin' }, randomUUID())
        .context.run(moneyModel.engagementModelStream(engagements.own), moneyModel.engagementModelDecider, {
          type: 'ChooseEngagementMoneyModel',
          engagementId: engagements.own,
          choice: { model: 'introduction', from: '2026-04-01' },
          today: '2026-04-05',
          actor: { role: 'admin' },
        });
    } finally {
      product.command.reactors.start();
    }
    await vi.waitFor(async () => expect(await generated('2026-04')).toHaveLength(1), { timeout: 60_000 });
    expect(await generated('2026-04')).toMatchObject([{ lessonCount: 1, earningsPence: 3550, commissionPence: 533 }]);
  });
});
