import { randomUUID } from 'node:crypto';
import { familyInvoice, reminder } from '@agency/domain';
import { startLoopbackSmtp } from '@agency/scripts/testing/loopback-smtp';
import { reactorsSettled } from '@agency/scripts/testing/reactors-settled';
import { startTestProduct, TEST_ADMIN, type TestProduct } from '@agency/scripts/testing/test-product';
import { contact, testRequests } from '@agency/scripts/testing/test-requests';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reactionContext } from '../reactors/reactor';
import { LATE_FEES_REACTOR } from './late-fee-reactor';
import { lateFeeInvoiceIdOf } from './reminder-chore';

const ADMIN = { id: 'reminder-test-admin', username: 'admin', role: 'admin' as const };
const DUE = '2026-01-15';
/** Noon in London on the day `days` after the due date. */
const daysAfterDue = (days: number) => new Date(Date.parse(`${DUE}T12:00:00Z`) + days * 86_400_000);

describe('reminders of overdue family invoices: each step once, a late fee once, aged debt and the accountant’s export', () => {
  let product: TestProduct;
  let smtp: Awaited<ReturnType<typeof startLoopbackSmtp>>;
  let db: pg.Pool;
  let admin = '';
  let now = daysAfterDue(-20);
  const requests = testRequests(
    () => product,
    () => admin,
  );
  const ids = { owing: randomUUID(), paid: randomUUID(), credited: randomUUID(), erased: randomUUID() };
  let pat = '';
  let crashedFeeNumber = 0;
  let eve = '';

  const act = () => product.command.actAs(ADMIN, randomUUID()).context;
  const issue = async (invoiceId: string, clientId: string, reference: string, pence: number, name = 'Pat Parent') =>
    act().run(familyInvoice.familyInvoiceStream(invoiceId), familyInvoice.familyInvoiceDecider, {
      type: 'IssueFamilyInvoice',
      invoice: {
        invoiceId,
        reference,
        date: '2026-01-01',
        dueDate: DUE,
        clientId,
        billedFor: { kind: 'consultation', id: randomUUID() },
        billing: {
          name,
          address: ['1 High Street'],
          postcode: 'OX1 1AA',
          email: `${name.replace(' ', '.').toLowerCase()}@example.com`,
        },
        lines: [{ description: 'Consultation', amountPence: pence }],
      },
    });
  const remindersOf = async (invoiceId: string) =>
    (await product.command.deps.store.readStream(reminder.remindersStream(invoiceId))).map((event) => event.data);
  const sendReminders = () => product.command.chores.sendReminders();
  const mailsWith = (text: string) => smtp.inbox.filter((mail) => mail.raw.includes(text));

  beforeAll(async () => {
    smtp = await startLoopbackSmtp();
    product = await startTestProduct({ smtpUrl: smtp.url }, { clock: () => now });
    db = new pg.Pool({ connectionString: product.databaseUrl });
    admin = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
    pat = (await requests.ok('/api/clients/contact', contact('Pat', 'Parent'))).client.id;
    eve = (await requests.ok('/api/clients/contact', contact('Eve', 'Gone'))).client.id;
    await issue(ids.owing, pat, 'TST00001', 17_500);
    await issue(ids.paid, pat, 'TST00002', 9_999);
    await issue(ids.credited, pat, 'TST00003', 5_000);
    await issue(ids.erased, eve, 'TST00004', 4_200, 'Eve Gone');
    await act().run(familyInvoice.familyInvoiceStream(ids.paid), familyInvoice.familyInvoiceDecider, {
      type: 'RecordFamilyPayment',
      paymentId: randomUUID(),
      date: '2026-01-10',
      amountPence: 9_999,
      actor: { role: 'admin' },
    });
    await act().run(familyInvoice.familyInvoiceStream(ids.credited), familyInvoice.familyInvoiceDecider, {
      type: 'IssueCreditNote',
      creditNoteId: randomUUID(),
      reference: 'CN-TST00005',
      date: '2026-01-05',
      reason: 'cancelled',
    });
    await requests.ok(`/api/clients/erase/${eve}`, { reason: 'Asked by the family', confirm: true });
  });
  afterAll(async () => {
    await db?.end();
    await product?.dispose();
    await smtp?.close();
  });

  it('takes a schedule in Settings; refuses days out of order or a negative fee and records nothing', async () => {
    const bad = await requests.post('/api/agency/reminders', { days: '14, 7', lateFee: '10' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.fields.days).toMatch(/increasing/);
    expect((await requests.post('/api/agency/reminders', { days: [7], lateFee: '-1' })).statusCode).toBe(400);
    expect(await product.command.deps.store.readStream(reminder.scheduleStream())).toEqual([]);
    const saved = await requests.ok('/api/agency/reminders', { days: '7, 14, 30', lateFee: '10.00' });
    expect(saved.reminders).toEqual({ days: [7, 14, 30], lateFee: 10 });
    expect((await requests.get('/api/agency/reminders')).body).toEqual({ days: [7, 14, 30], lateFee: 10 });
  });

  it('records one reminder per step however many runners run at once, and none again after a restart', async () => {
    // A reminder 7 days after the due date is sent on the 7th day after it, not on the 6th.
    now = daysAfterDue(6);
    await Promise.all([sendReminders(), sendReminders()]);
    expect(await remindersOf(ids.owing)).toEqual([]);
    now = daysAfterDue(7);
    await Promise.all([sendReminders(), sendReminders(), sendReminders()]);
    await sendReminders();
    expect((await remindersOf(ids.owing)).map((r) => r.step)).toEqual([1]);
    // Step 2's fee as if its reactor had crashed between taking the fee's number and issuing it:
    // the number is already taken, and the retry must use it rather than take another.
    const taken = await act().run(familyInvoice.sequenceStream(), familyInvoice.sequenceDecider, {
      type: 'TakeNumber',
      documentId: lateFeeInvoiceIdOf(ids.owing, 2),
    });
    crashedFeeNumber = taken.numbers.get(lateFeeInvoiceIdOf(ids.owing, 2)) ?? 0;
    now = daysAfterDue(15);
    await Promise.all([sendReminders(), sendReminders()]);
    await sendReminders();
    const recorded = await remindersOf(ids.owing);
    expect(recorded.map((r) => [r.step, r.daysAfterDue, r.outstandingPence])).toEqual([
      [1, 7, 17_500],
      [2, 14, 17_500],
    ]);
    expect(recorded[1]?.lateFee).toEqual({ invoiceId: lateFeeInvoiceIdOf(ids.owing, 2), amountPence: 1_000 });
  });

  it('reminds nobody of an invoice paid, credited, or owed by an erased family', async () => {
    expect(await remindersOf(ids.paid)).toEqual([]);
    expect(await remindersOf(ids.credited)).toEqual([]);
    expect(await remindersOf(ids.erased)).toEqual([]);
  });

  it('mails each reminder once and charges each step’s fee once, on an invoice of its own', async () => {
    await reactorsSettled(db);
    expect(mailsWith('Subject: Reminder 1: invoice TST00001 is overdue')).toHaveLength(1);
    expect(mailsWith('Subject: Reminder 2: invoice TST00001 is overdue')).toHaveLength(1);
    expect(mailsWith('Subject: Reminder 1: invoice TST00004')).toEqual([]);
    for (const step of [1, 2]) {
      const fee = await product.command.deps.store.readStream(
        familyInvoice.familyInvoiceStream(lateFeeInvoiceIdOf(ids.owing, step)),
      );
      expect(fee.map((event) => event.type)).toEqual(['FamilyInvoiceIssued']);
      expect(fee[0]?.data).toMatchObject({
        billedFor: { kind: 'late-fee', id: ids.owing },
        totalPence: 1_000,
        lines: [{ description: expect.stringMatching(new RegExp(`invoice TST00001 .*reminder ${step}`)) }],
      });
    }
    // The overdue invoice itself is as it was issued.
    const owing = await product.command.deps.store.readStream(familyInvoice.familyInvoiceStream(ids.owing));
    expect(owing.map((event) => event.type)).toEqual(['FamilyInvoiceIssued']);
    // The late-fee reactor handling both reminders again (a crash before its checkpoint moved) charges nothing more.
    const lateFees = product.command.reactors.reactors.find((r) => r.name === LATE_FEES_REACTOR);
    if (!lateFees) throw new Error('no late-fee reactor');
    for (const event of await product.command.deps.store.readStream(reminder.remindersStream(ids.owing))) {
      await lateFees.react(event, (key) => reactionContext(product.command.deps, LATE_FEES_REACTOR, event, key));
    }
    const feeIds = [1, 2].map((step) => lateFeeInvoiceIdOf(ids.owing, step));
    const secondFee = await product.command.deps.store.readStream(familyInvoice.familyInvoiceStream(feeIds[1] ?? ''));
    expect(secondFee[0]?.data).toMatchObject({
      reference: familyInvoice.familyInvoiceReference('OTA', crashedFeeNumber),
    });
    const numbers = (await product.command.deps.store.readStream(familyInvoice.sequenceStream())).filter((event) =>
      feeIds.includes((event.data as { documentId: string }).documentId),
    );
    expect(numbers).toHaveLength(2);
    for (const id of feeIds) {
      const fee = await product.command.deps.store.readStream(familyInvoice.familyInvoiceStream(id));
      expect(fee).toHaveLength(1);
    }
  });

  it('ages what each family owes, on screen and as CSV', async () => {
    now = daysAfterDue(45);
    type Row = { clientId: string; total: number };
    const report = async () => (await requests.get('/api/reports/aged-debt')).body;
    const rowOf = async (clientId: string) => ((await report()).rows as Row[]).find((row) => row.clientId === clientId);
    // The fees' invoices reach the read model a moment after their reactor.
    await expect.poll(async () => (await rowOf(pat))?.total, { timeout: 60_000 }).toBe(195);
    // The consultation's column by the report's own day (45 days late on the product's clock: 31–60); the
    // fees, issued on the day their reminders were handled and due 14 days later, are not yet due.
    const { asOf } = await report();
    const column = {
      current: 'current',
      '1-30': 'days1to30',
      '31-60': 'days31to60',
      '61-90': 'days61to90',
      '90+': 'over90',
    }[reminder.agedBucket(DUE, asOf)];
    const patRow = await rowOf(pat);
    expect(patRow).toMatchObject({ invoices: 3, lastReminder: { step: 2 }, total: 195 });
    expect(patRow).toMatchObject(column === 'current' ? { current: 195 } : { current: 20, [column]: 175 });
    const eveRow = await rowOf(eve);
    expect(eveRow).toMatchObject({ family: 'Erased', [column]: 42, total: 42, lastReminder: null });
    const csv = await fetch(`${product.url}/api/reports/aged-debt?format=csv`, {
      headers: { authorization: `Bearer ${admin}` },
    });
    const text = await csv.text();
    expect(text.split('\r\n')[0]).toContain('"Current","1-30 days","31-60 days","61-90 days","Over 90 days","Total"');
    expect(text).toContain(`"Pat Parent","${pat}","3","20.00",`);
    expect(text).toContain('"195.00","2 on ');
  });

  it('exports a period for Xero the same bytes twice; a credit note after it is the whole difference', async () => {
    const exportOf = async (query: string) => {
      const response = await fetch(`${product.url}/api/reports/accounting-export?${query}`, {
        headers: { authorization: `Bearer ${admin}` },
      });
      expect(response.status).toBe(200);
      return { text: await response.text(), mark: response.headers.get('export-mark') ?? '' };
    };
    const period = 'from=2026-01-01&to=2026-01-31&layout=xero&part=sales';
    const first = await exportOf(period);
    expect((await exportOf(period)).text).toBe(first.text);
    const lines = first.text.trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      '"ContactName","EmailAddress","InvoiceNumber","Reference","InvoiceDate","DueDate","Description","Quantity","UnitAmount","AccountCode","TaxType","TaxAmount","Currency"',
    );
    expect(lines).toContain(
      `"Pat Parent","pat.parent@example.com","TST00001","${ids.owing}:1","01/01/2026","15/01/2026","Consultation","1","175","200","No VAT","0","GBP"`,
    );
    // The credit note of 5 January credits invoice TST00003 in the same period.
    expect(lines.filter((line) => line.includes('"CN-TST00005"'))).toHaveLength(1);
    const creditNoteId = randomUUID();
    await act().run(familyInvoice.familyInvoiceStream(ids.owing), familyInvoice.familyInvoiceDecider, {
      type: 'IssueCreditNote',
      creditNoteId,
      reference: 'CN-TST00006',
      date: '2026-01-20',
      reason: 'changed',
    });
    const differenceRows = async () => (await exportOf(`${period}&since=${first.mark}`)).text.trimEnd().split('\r\n');
    await expect.poll(async () => (await differenceRows()).length, { timeout: 60_000 }).toBe(2);
    const difference = await exportOf(`${period}&since=${first.mark}`);
    expect(difference.text.trimEnd().split('\r\n').slice(1)).toEqual([
      `"Pat Parent","pat.parent@example.com","CN-TST00006","${creditNoteId}:1","20/01/2026","20/01/2026","Consultation (credits TST00001)","1","-175","200","No VAT","0","GBP"`,
    ]);
    expect((await exportOf(`${period}&since=${difference.mark}`)).text.split('\r\n').length).toBe(2);
    for (const bad of ['from=2026-02-01&to=2026-01-31', 'from=2024-01-01&to=2026-01-31', `${period}&since=yesterday`]) {
      const refused = await requests.get(`/api/reports/accounting-export?${bad}`);
      expect(refused.status, bad).toBe(400);
    }
    const payments = await exportOf('from=2026-01-01&to=2026-01-31&layout=quickbooks&part=payments');
    expect(payments.text).toContain('"10/01/2026","Payment of invoice TST00002 from Pat Parent (');
    expect(payments.text).toContain('"99.99"');
  });
});
