import { todayIn } from '@agency/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestProduct, TEST_ADMIN, type TestProduct } from '../testing/test-product';
import { seedLessons } from './lessons';
import { billMoneyModels, chooseMoneyModels, monthBefore } from './money-models';

type Entry = { kind: string; id: string; billedFor: string; state: string };
type Line = { kind: string; hours: number; rate: number; amount: number; vat: number };

describe('demo money models', () => {
  let product: TestProduct;
  let token: string;
  const get = (url: string) => product.api(token).get(url);
  const post = (url: string, payload: object) => product.api(token).post(url, payload);
  const contact = (firstName: string, lastName: string) => ({
    firstName,
    lastName,
    address: ['1 High Street'],
    postcode: 'OX1 1AA',
    email: `${firstName}.${lastName}@example.com`.toLowerCase(),
    phone: [{ type: 'Mobile', number: '07700 900000' }],
  });

  beforeAll(async () => {
    product = await startTestProduct();
    token = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
  }, 120_000);
  afterAll(() => product?.dispose());

  it('bills a family for lessons with VAT and a late change, an introduction fee, pay statements and pay runs', async () => {
    const tutors: string[] = [];
    for (const name of ['Ann', 'Bob', 'Cat']) {
      const { tutor } = await post('/api/tutors/contact', {
        contact: contact(name, 'Tutor'),
        tutor: { username: `${name}tutor`.toLowerCase(), invoicePrefix: `${name[0]}T`, startDate: '2020-01-01' },
      });
      tutors.push(tutor.id);
    }
    // A family already taught under the spec's model is left as it is.
    const { client: taught } = await post('/api/clients/contact', contact('Parent', 'Taught'));
    const { child: taughtChild } = await post(`/api/clients/child/${taught.id}`, {
      firstName: 'Tia',
      lastName: 'Taught',
      dob: '2014-01-01',
    });
    await post('/api/tutors/engagement', {
      tutorId: tutors[0],
      studentId: taughtChild.id,
      rate: 40,
      commissionPct: 25,
      partnerPct: 0,
      startDate: '2020-01-01',
      subjects: ['Maths'],
    });
    for (const [surname, kids] of [
      ['Sold', ['Sam', 'Sue']],
      ['Intro', ['Ivy']],
    ] as const) {
      const { client } = await post('/api/clients/contact', contact('Parent', surname));
      for (const kid of kids) {
        await post(`/api/clients/child/${client.id}`, { firstName: kid, lastName: surname, dob: '2014-01-01' });
      }
    }

    const plan = await chooseMoneyModels(product, token);
    expect(plan).not.toBeNull();
    await seedLessons(product, token);
    expect(await billMoneyModels(product, token, plan!)).toMatch(/one lesson changed after billing/);

    const today = todayIn('Europe/London', new Date());
    const [oldest, middle, last] = [3, 2, 1].map((back) => monthBefore(today, back));
    const agency = await get('/api/agency/money-model');
    expect(JSON.stringify(agency)).toContain('"vatRate":20');

    // The family whose lessons the agency sells: one invoice a month, the first paid, VAT on every line.
    const sold = (await get(`/api/family-invoices?client=${plan!.sold.clientId}`)).entries as Entry[];
    const invoices = new Map<string, { id: string; state: string }>();
    for (const entry of sold.filter((e) => e.kind === 'invoice' && e.billedFor === 'lessons')) {
      invoices.set((await get(`/api/family-invoices/lines/${entry.id}`)).month, entry);
    }
    expect([...invoices.keys()].sort()).toEqual([oldest, middle, last]);
    expect(invoices.get(oldest!)?.state).toBe('paid');
    const lines = (await get(`/api/family-invoices/lines/${invoices.get(last!)!.id}`)).lines as Line[];
    expect(lines.filter((line) => line.kind === 'tuition').length).toBeGreaterThan(0);
    for (const line of lines) expect(Math.round(line.vat * 100)).toBe(Math.round(line.amount * 20));
    // Half an hour more at £36 an hour, billed the month after: £18.00 and £3.60 VAT.
    expect(lines.filter((line) => line.kind === 'adjustment').map(({ amount, vat }) => ({ amount, vat }))).toEqual([
      { amount: 18, vat: 3.6 },
    ]);

    const introduced = (await get(`/api/family-invoices?client=${plan!.introduced.clientId}`)).entries as Entry[];
    const fee = introduced.find((entry) => entry.kind === 'invoice' && entry.billedFor === 'lessons')!;
    const feeLines = (await get(`/api/family-invoices/lines/${fee.id}`)).lines as Line[];
    expect(feeLines.map((line) => line.kind)).toContain('introduction-fee');

    // The first tutor's statement for the last month pays the longer lesson as an adjustment.
    const { statements } = await get(`/api/pay-statements?month=${last}&tutorId=${plan!.sold.tutorIds[0]}`);
    expect(statements).toHaveLength(1);
    const { statement } = await get(`/api/pay-statements/${statements[0].id}`);
    expect(statement.confirmed).toBe(true);
    expect(statement.lines.filter((line: { kind: string }) => line.kind === 'adjustment')).toHaveLength(1);

    const { runs } = await get('/api/pay-runs');
    expect(runs.map((run: { month: string; paidOn: string | null }) => [run.month, run.paidOn])).toEqual([
      [last, null],
      [middle, today],
    ]);
    const file = await product.command.app.inject({
      method: 'GET',
      url: `/api/pay-runs/${last}/bank-file.csv`,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(file.statusCode).toBe(200);
    const rows = file.body.trim().split(/\r?\n/);
    expect(rows).toHaveLength(2);
    expect(rows[1]).toMatch(new RegExp(`^"ANN TUTOR","200010","55123400","\\d+\\.\\d\\d","PS-AT-${last}"$`));
  });
});
