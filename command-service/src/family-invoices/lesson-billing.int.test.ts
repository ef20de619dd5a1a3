import { randomUUID } from 'node:crypto';
import { familyInvoice, lessonBilling, moneyModel } from '@agency/domain';
import type { RecordedEvent } from '@agency/platform';
import { pdfText } from '@agency/scripts/testing/pdf-text';
import { reactorsSettled } from '@agency/scripts/testing/reactors-settled';
import { startTestProduct, TEST_ADMIN, type TestProduct } from '@agency/scripts/testing/test-product';
import { contact, testRequests } from '@agency/scripts/testing/test-requests';
import { verifyProduct } from '@agency/scripts/verify-store';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reactionContext } from '../reactors/reactor';
import { LESSON_BILLING_REACTOR, lessonInvoiceIdOf } from './lesson-billing';

const ADMIN = { id: 'lesson-billing-test-admin', username: 'admin', role: 'admin' as const };

/**
 * Families billed for lessons (docs/money-models.md, "Family lesson invoices"). The agency sells the
 * tuition from February 2026 at 20 % VAT. The Mix family: Ann's engagement under the agency's model
 * (£30.10 an hour), Ben's its own `introduction` (£40, 20 % commission). The Com family's engagement
 * keeps the spec's model; the Gone family is erased before February is billed.
 */
describe('lesson billing: one invoice per family and month, late changes as adjustments', () => {
  let product: TestProduct;
  let db: pg.Pool;
  let admin = '';
  let now = new Date('2026-02-10T12:00:00Z');
  const { post, ok, get } = testRequests(
    () => product,
    () => admin,
  );
  let tutorId = '';
  const families = { mix: '', com: '', gone: '' };
  const engagements = { ann: '', ben: '', cal: '', dee: '' };
  const children = { ann: '', ben: '' };
  let annLate = '';
  let mayLesson = '';

  const store = () => product.command.deps.store;
  const act = () => product.command.actAs(ADMIN, randomUUID()).context;
  const countEvents = async () => Number((await db.query('select count(*) from es.events')).rows[0].count);
  const invoiceOf = async (clientId: string, month: string, revision = 0) =>
    (await store().readStream(familyInvoice.familyInvoiceStream(lessonInvoiceIdOf(clientId, month, revision)))).map(
      (event) => ({
        type: event.type,
        data: event.data as familyInvoice.IssuedInvoice,
      }),
    );
  const lesson = (engagementId: string, date: string, duration: number, id?: string) =>
    ok(`/api/lessons/lesson?month=${date.slice(0, 7)}`, { tutorId, lesson: { id, engagementId, date, duration } });
  const engage = async (surname: string, child: string, rate: number, commissionPct: number) => {
    const family = (await ok('/api/clients/contact', contact('Parent', surname))).client.id as string;
    const kid = (await ok(`/api/clients/child/${family}`, { firstName: child, lastName: surname, dob: '2014-05-01' }))
      .child.id as string;
    const { engagement } = await ok('/api/tutors/engagement', {
      tutorId,
      studentId: kid,
      rate,
      commissionPct,
      partnerPct: 0,
      startDate: '2026-01-05',
      subjects: ['Maths'],
    });
    return { family, kid, engagement: engagement.id as string };
  };
  const ownModel = (engagementId: string, model: 'introduction' | 'tutor-pays-commission') =>
    act().run(moneyModel.engagementModelStream(engagementId), moneyModel.engagementModelDecider, {
      type: 'ChooseEngagementMoneyModel',
      engagementId,
      choice: { model, from: '2026-02-01' },
      today: '2026-02-10',
      actor: { role: 'admin' },
    });
  const bill = (month: string) => ok('/api/family-invoices/lesson-billing', { month });
  const lineSummary = (invoice: familyInvoice.IssuedInvoice) =>
    invoice.lines.map((line) => [line.lesson?.kind, line.lesson?.date, line.amountPence, line.vatPence]);

  beforeAll(async () => {
    product = await startTestProduct({}, { clock: () => now });
    db = new pg.Pool({ connectionString: product.databaseUrl });
    admin = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
    const { tutor } = await ok('/api/tutors/contact', {
      contact: contact('Tina', 'Teach'),
      tutor: { username: 'tinateach', invoicePrefix: 'TT', startDate: '2025-09-01' },
    });
    tutorId = tutor.id;
    await act().run(moneyModel.agencyModelStream(), moneyModel.agencyModelDecider, {
      type: 'ChooseAgencyMoneyModel',
      choice: { model: 'agency-sells-tuition', from: '2026-02-01', vatRateBp: 2000, payAfterFamilyPays: false },
      today: '2026-02-10',
      actor: { role: 'admin' },
    });
    const ann = await engage('Mix', 'Ann', 30.1, 15);
    families.mix = ann.family;
    children.ann = ann.kid;
    engagements.ann = ann.engagement;
    const ben = (
      await ok(`/api/clients/child/${families.mix}`, { firstName: 'Ben', lastName: 'Mix', dob: '2016-05-01' })
    ).child.id as string;
    children.ben = ben;
    engagements.ben = (
      await ok('/api/tutors/engagement', {
        tutorId,
        studentId: ben,
        rate: 40,
        commissionPct: 20,
        partnerPct: 0,
        startDate: '2026-01-05',
        subjects: ['Maths'],
      })
    ).engagement.id;
    await ownModel(engagements.ben, 'introduction');
    const cal = await engage('Com', 'Cal', 25, 10);
    families.com = cal.family;
    engagements.cal = cal.engagement;
    await ownModel(engagements.cal, 'tutor-pays-commission');
    const dee = await engage('Gone', 'Dee', 30, 10);
    families.gone = dee.family;
    engagements.dee = dee.engagement;

    await lesson(engagements.ann, '2026-02-03', 1.5);
    await lesson(engagements.ann, '2026-02-17', 1);
    await lesson(engagements.ben, '2026-02-05', 1);
    await lesson(engagements.cal, '2026-02-04', 1);
    await lesson(engagements.dee, '2026-02-06', 1);
    // The Gone family's engagement ends, and the family is erased before February is billed.
    await ok('/api/tutors/engagement', {
      id: engagements.dee,
      tutorId,
      rate: 30,
      commissionPct: 10,
      partnerPct: 0,
      startDate: '2026-02-20',
      endDate: '2026-02-20',
      change: 'termination',
    });
    now = new Date('2026-03-02T12:00:00Z');
    await ok(`/api/clients/erase/${families.gone}`, { reason: 'Asked by the family', confirm: true });
  });
  afterAll(async () => {
    await db?.end();
    await product?.dispose();
  });

  it('refuses a malformed or future month and a non-admin with 4xx, writing nothing', async () => {
    await ok('/api/users', { username: 'tina', password: 'tina-password-1', role: 'tutor', tutorId, name: 'Tina' });
    const tutorToken = await product.login('tina', 'tina-password-1');
    const before = await countEvents();
    const malformed = await post('/api/family-invoices/lesson-billing', { month: '2026-13' });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().error.fields).toHaveProperty('month');
    const future = await post('/api/family-invoices/lesson-billing', { month: '2026-04' });
    expect(future.statusCode).toBe(400);
    expect(future.json().error.fields).toEqual({ month: 'Bill this month or an earlier one' });
    expect((await post('/api/family-invoices/lesson-billing', {})).statusCode).toBe(400);
    expect((await post('/api/family-invoices/lesson-billing', { month: '2026-02' }, tutorToken)).statusCode).toBe(403);
    expect(await countEvents()).toBe(before);
  });

  it('bills each family once for the month however often it is asked: VAT per line, the introduction fee, nothing for the spec’s model or an erased family', async () => {
    await Promise.all([bill('2026-02'), bill('2026-02')]);
    await bill('2026-02');
    await reactorsSettled(db, 60_000);
    const [issued, ...more] = await invoiceOf(families.mix, '2026-02');
    expect(more).toEqual([]);
    const invoice = issued?.data;
    if (!invoice) throw new Error('no February invoice for the Mix family');
    expect(invoice.billedFor).toEqual({ kind: 'lessons', id: '2026-02' });
    expect(lineSummary(invoice)).toEqual([
      ['tuition', '2026-02-03', 4515, 903], // 1.5 h × £30.10, VAT 20 %
      ['introduction-fee', '2026-02-05', 800, 160], // 20 % of £40.00, VAT 20 %
      ['tuition', '2026-02-17', 3010, 602],
    ]);
    expect(invoice.vatPence).toBe(1665);
    expect(invoice.totalPence).toBe(9990);
    expect(invoice.tutorBilled).toEqual([
      {
        lessonId: expect.any(String),
        date: '2026-02-05',
        tutorId,
        studentId: children.ben,
        duration: 100,
        amountPence: 4000,
      },
    ]);
    expect(invoice.names).toEqual([
      { id: children.ann, name: 'Ann Mix' },
      { id: tutorId, name: 'Tina Teach' },
      { id: children.ben, name: 'Ben Mix' },
    ]);
    // One number of the agency sequence, for this invoice's own id.
    const numbers = (await store().readStream(familyInvoice.sequenceStream())).filter(
      (event) => (event.data as { documentId: string }).documentId === invoice.invoiceId,
    );
    expect(numbers).toHaveLength(1);
    expect(invoice.reference).toBe(
      familyInvoice.familyInvoiceReference('OTA', (numbers[0]?.data as { number: number }).number),
    );
    // The accountant's export gives the lines their VAT (net amounts, tax exclusive). The invoice is
    // dated the day its request was recorded (the store's clock, not the product's).
    await expect
      .poll(
        async () => {
          const response = await fetch(
            `${product.url}/api/reports/accounting-export?from=${invoice.date}&to=${invoice.date}&layout=xero&part=sales`,
            { headers: { authorization: `Bearer ${admin}` } },
          );
          return (await response.text()).split('\r\n').filter((row) => row.includes(invoice.reference));
        },
        { timeout: 60_000 },
      )
      .toEqual([
        expect.stringContaining('"Tuition, 1.5 h at £30.10/h","1","45.15","200","20% (VAT on Income)","9.03","GBP"'),
        expect.stringContaining('"Introduction fee for a 1 h lesson","1","8","200","20% (VAT on Income)","1.6","GBP"'),
        expect.stringContaining('"Tuition, 1 h at £30.10/h","1","30.1","200","20% (VAT on Income)","6.02","GBP"'),
      ]);
    expect(await invoiceOf(families.com, '2026-02')).toEqual([]);
    expect(await invoiceOf(families.gone, '2026-02')).toEqual([]);
    await expect
      .poll(
        async () =>
          (
            await db.query(
              `select kind, to_char(lesson_date, 'YYYY-MM-DD') as date, amount_pence::int as amount
                 from read.family_invoice_lessons where invoice_id = $1 order by lesson_date`,
              [invoice.invoiceId],
            )
          ).rows,
        { timeout: 60_000 },
      )
      .toEqual([
        { kind: 'tuition', date: '2026-02-03', amount: 4515 },
        { kind: 'introduction-fee', date: '2026-02-05', amount: 800 },
        { kind: 'tuition', date: '2026-02-17', amount: 3010 },
      ]);
  });

  it('a lesson changed or recorded after its month was billed is an adjustment on the next invoice; the issued one never changes; a crash after the number was taken reuses it', async () => {
    const february = (await invoiceOf(families.mix, '2026-02'))[0]?.data;
    const changed = february?.lines[2]?.lesson?.lessonId;
    if (!february || !changed) throw new Error('no February invoice');
    await lesson(engagements.ann, '2026-02-17', 0.5, changed);
    annLate = (await lesson(engagements.ann, '2026-02-24', 1)).lesson.id;
    await lesson(engagements.ann, '2026-03-03', 1);
    // As if the reactor had crashed between taking March's number and issuing the invoice.
    const marchId = lessonInvoiceIdOf(families.mix, '2026-03');
    const taken = await act().run(familyInvoice.sequenceStream(), familyInvoice.sequenceDecider, {
      type: 'TakeNumber',
      documentId: marchId,
    });
    const crashedNumber = taken.numbers.get(marchId);
    now = new Date('2026-04-01T12:00:00Z');
    await bill('2026-03');
    await reactorsSettled(db, 60_000);
    const [march, ...more] = await invoiceOf(families.mix, '2026-03');
    expect(more).toEqual([]);
    if (!march) throw new Error('no March invoice');
    expect(march.data.reference).toBe(familyInvoice.familyInvoiceReference('OTA', crashedNumber ?? 0));
    expect(lineSummary(march.data)).toEqual([
      ['tuition', '2026-03-03', 3010, 602],
      ['adjustment', '2026-02-17', -1505, -301], // 1 h → 0.5 h
      ['adjustment', '2026-02-24', 3010, 602], // recorded after February was billed
    ]);
    expect(march.data.lines[1]?.description).toBe('Adjustment: lesson of 2026-02-17 changed');
    expect(march.data.totalPence).toBe(3010 + 602 - 1505 - 301 + 3010 + 602);
    // Its PDF names each lesson (date, child, tutor) with its VAT, and the net, VAT and total.
    const pdf = await fetch(`${product.url}/api/family-invoices/doc/${march.data.invoiceId}`, {
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(pdf.status).toBe(200);
    // One space for each run of spaces and line breaks: a long line wraps.
    const text = pdfText(new Uint8Array(await pdf.arrayBuffer())).replace(/\s+/g, ' ');
    expect(text).toContain(
      '17 Feb 2026 Ann Mix with Tina Teach: Adjustment: lesson of 2026-02-17 changed (VAT -£3.01)',
    );
    expect(text).toContain('-£15.05');
    expect(text).toContain('Net £45.15 VAT £9.03 Total £54.18');
    // The screen's lines: each lesson with its child and tutor, the adjustments, net, VAT and total.
    const lines = await get(`/api/family-invoices/lines/${march.data.invoiceId}`);
    expect(lines.status).toBe(200);
    expect(lines.body).toMatchObject({
      reference: march.data.reference,
      month: '2026-03',
      net: 45.15,
      vat: 9.03,
      total: 54.18,
    });
    expect(
      lines.body.lines.map((line: { kind: string; child: string; tutor: string; amount: number; vat: number }) => [
        line.kind,
        line.child,
        line.tutor,
        line.amount,
        line.vat,
      ]),
    ).toEqual([
      ['tuition', 'Ann Mix', 'Tina Teach', 30.1, 6.02],
      ['adjustment', 'Ann Mix', 'Tina Teach', -15.05, -3.01],
      ['adjustment', 'Ann Mix', 'Tina Teach', 30.1, 6.02],
    ]);
    // The ledger lists lessons invoices as such.
    const ledger = await get(`/api/family-invoices?client=${families.mix}`);
    expect(ledger.status).toBe(200);
    expect(ledger.body.entries.map((entry: { billedFor: string }) => entry.billedFor)).toEqual(['lessons', 'lessons']);
    // The family's page (as its portal, the same overview) lists its lessons invoices.
    const overview = await get(`/api/clients/${families.mix}/overview`);
    expect(overview.status).toBe(200);
    expect(overview.body.invoices.map((invoice: { billedFor: string }) => invoice.billedFor)).toEqual([
      'lessons',
      'lessons',
    ]);
    // February's invoice is as it was issued.
    expect(await invoiceOf(families.mix, '2026-02')).toEqual([{ type: 'FamilyInvoiceIssued', data: february }]);

    // The reactor handling the request again (a crash before its checkpoint moved) issues nothing more.
    const requests = await store().readStream(lessonBilling.lessonBillingStream());
    const marchRequest = requests.find((event) => (event.data as { month: string }).month === '2026-03');
    const reactor = product.command.reactors.reactors.find((r) => r.name === LESSON_BILLING_REACTOR);
    if (!reactor || !marchRequest) throw new Error('no reactor or request');
    await reactor.react(marchRequest as RecordedEvent, (key) =>
      reactionContext(product.command.deps, LESSON_BILLING_REACTOR, marchRequest, key),
    );
    expect(await invoiceOf(families.mix, '2026-03')).toHaveLength(1);
    const numbers = (await store().readStream(familyInvoice.sequenceStream())).filter(
      (event) => (event.data as { documentId: string }).documentId === marchId,
    );
    expect(numbers).toHaveLength(1);
  });

  it('a net negative is carried forward: no invoice, and the next month holds the difference', async () => {
    // The lesson recorded late for February is removed in April: £30.10 back, with its VAT.
    await lesson(engagements.ann, '2026-02-24', 0, annLate);
    now = new Date('2026-05-01T12:00:00Z');
    await bill('2026-04');
    await reactorsSettled(db, 60_000);
    expect(await invoiceOf(families.mix, '2026-04')).toEqual([]);
    mayLesson = (await lesson(engagements.ann, '2026-05-04', 2)).lesson.id;
    now = new Date('2026-06-01T12:00:00Z');
    await bill('2026-05');
    await reactorsSettled(db, 60_000);
    const may = (await invoiceOf(families.mix, '2026-05'))[0]?.data;
    if (!may) throw new Error('no May invoice');
    expect(lineSummary(may)).toEqual([
      ['tuition', '2026-05-04', 6020, 1204],
      ['adjustment', '2026-02-24', -3010, -602],
    ]);
    expect(may.totalPence).toBe(6020 + 1204 - 3010 - 602);
  });

  it('a family owed money back may have it as a credit note now: its latest lessons invoice credited and the month billed again at once', async () => {
    const before = await countEvents();
    expect((await post('/api/family-invoices/lesson-credit', {})).statusCode).toBe(400);
    expect((await post('/api/family-invoices/lesson-credit', { clientId: randomUUID() })).statusCode).toBe(404);
    // Nothing is owed back yet; a family never billed for lessons has nothing to credit.
    const nothing = await post('/api/family-invoices/lesson-credit', { clientId: families.mix });
    expect(nothing.statusCode).toBe(409);
    expect(nothing.json().error.message).toMatch(/Nothing is owed back/);
    expect((await post('/api/family-invoices/lesson-credit', { clientId: families.com })).statusCode).toBe(409);
    expect(await countEvents()).toBe(before);

    // May's 2 h lesson was 1.5 h: £15.05 and its £3.01 VAT are owed back.
    await lesson(engagements.ann, '2026-05-04', 1.5, mayLesson);
    const may = (await invoiceOf(families.mix, '2026-05'))[0]?.data;
    if (!may) throw new Error('no May invoice');
    const credit = await ok('/api/family-invoices/lesson-credit', { clientId: families.mix });
    await reactorsSettled(db, 60_000);
    expect(credit.underWay).toBe(false);
    expect(credit.creditNote.total).toBe(36.12);
    expect(credit.invoice.total).toBe(18.06); // 36.12 − 18.06 = 15.05 + 3.01 back
    expect((await invoiceOf(families.mix, '2026-05')).map((event) => event.type)).toEqual([
      'FamilyInvoiceIssued',
      'FamilyCreditNoteIssued',
    ]);
    const again = (await invoiceOf(families.mix, '2026-05', 1))[0]?.data;
    if (!again) throw new Error('no second revision of May');
    expect(again.invoiceId).toBe(credit.invoice.id);
    expect(lineSummary(again)).toEqual([
      ['tuition', '2026-05-04', 4515, 903],
      ['adjustment', '2026-02-24', -3010, -602],
    ]);
    // The accountant's export credits each line with its VAT, negative.
    const credited = await store().readStream(familyInvoice.familyInvoiceStream(may.invoiceId));
    const note = credited[1]?.data as { reference: string; date: string };
    await expect
      .poll(
        async () => {
          const response = await fetch(
            `${product.url}/api/reports/accounting-export?from=${note.date}&to=${note.date}&layout=quickbooks&part=sales`,
            { headers: { authorization: `Bearer ${admin}` } },
          );
          return (await response.text()).split('\r\n').filter((row) => row.startsWith(`"${note.reference}"`));
        },
        { timeout: 60_000 },
      )
      .toEqual([
        expect.stringContaining('"1","-60.2","-60.2","20.0% S","-12.04"'),
        expect.stringContaining('"1","30.1","30.1","20.0% S","6.02"'),
      ]);
    // Asked again: nothing more is owed back, nothing written.
    const after = await countEvents();
    expect((await post('/api/family-invoices/lesson-credit', { clientId: families.mix })).statusCode).toBe(409);
    expect(await countEvents()).toBe(after);
  });

  it('npm run verify folds the billing and credit streams and finds each lessons invoice’s total in its lines and their VAT', async () => {
    await reactorsSettled(db, 60_000);
    const readDb = new pg.Pool({ connectionString: product.databaseUrl, options: '-c search_path=read' });
    try {
      const report = await verifyProduct(db, readDb, store(), 'Europe/London');
      expect(report.differences).toEqual([]);
    } finally {
      await readDb.end();
    }
  });
});
