import { startTestProduct, TEST_ADMIN, type TestProduct } from '@agency/scripts/testing/test-product';
import { testRequests } from '@agency/scripts/testing/test-requests';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

type Json = Record<string, unknown>;

const contact = (firstName: string, lastName: string) => ({
  firstName,
  lastName,
  address: ['1 High Street', 'Oxford'],
  postcode: 'OX1 1AA',
  email: `${firstName}.${lastName}@example.com`.toLowerCase(),
  phone: [{ type: 'Mobile', number: '07700 900001' }],
});

/** Previewing writes nothing, generating locks, withdrawing voids and unlocks. */
describe('generating is not confirming: preview, generate, withdraw', () => {
  let product: TestProduct;
  let db: pg.Pool;
  let admin: string;
  let ivyToken: string;
  let otherToken: string;
  let ivy = '';
  let engagementId = '';
  const invoiceId = () => `${ivy}_2025-03`;

  const { post, ok, get } = testRequests(
    () => product,
    () => admin,
  );
  const preview = async (token = admin) => {
    const answer = await get(`/api/invoices/preview?year=2025&month=3&tutorId=${ivy}`, token);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body;
  };
  const listed = async () => (await get(`/api/invoices/?year=2025&month=3&tutorId=${ivy}`)).body;
  const lesson = (date: string, duration: number) =>
    post('/api/lessons/lesson?month=2025-03', { tutorId: ivy, lesson: { engagementId, date, duration } });
  const countEvents = async () => Number((await db.query('select count(*) from es.events')).rows[0].count);

  beforeAll(async () => {
    product = await startTestProduct();
    db = new pg.Pool({ connectionString: product.databaseUrl });
    admin = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
    const made = async (first: string, last: string, prefix: string) =>
      (
        await ok('/api/tutors/contact', {
          contact: contact(first, last),
          tutor: { username: `${first}${last}`.toLowerCase(), invoicePrefix: prefix, startDate: '2024-01-01' },
        })
      ).tutor.id as string;
    ivy = await made('Ivy', 'Withdraw', 'IW');
    const other = await made('Otto', 'Other', 'OO');
    const { client } = await ok('/api/clients/contact', contact('Pam', 'Parent'));
    const { child } = await ok(`/api/clients/child/${client.id}`, {
      firstName: 'Kit',
      lastName: 'P',
      dob: '2014-01-01',
    });
    ({
      engagement: { id: engagementId },
    } = await ok('/api/tutors/engagement', {
      tutorId: ivy,
      studentId: child.id,
      rate: 40,
      commissionPct: 25,
      partnerPct: 10,
      startDate: '2024-01-01',
      subjects: ['Maths'],
    }));
    for (const [username, tutorId] of [
      ['ivy', ivy],
      ['otto', other],
    ] as const) {
      await ok('/api/users', { username, password: `${username}-password-1`, role: 'tutor', tutorId, name: username });
    }
    ivyToken = await product.login('ivy', 'ivy-password-1');
    otherToken = await product.login('otto', 'otto-password-1');
    expect((await lesson('2025-03-03', 1.5)).statusCode).toBe(200);
  });
  afterAll(async () => {
    await db?.end();
    await product?.dispose();
  });

  it('previews the month from its lessons without writing anything', async () => {
    const before = await countEvents();
    await expect
      .poll(() => preview(ivyToken))
      .toMatchObject({
        lessonCount: 1,
        earnings: 60,
        totalCommission: 15,
        items: [{ description: 'Earnings of £60.00 at 25% commission', commission: 15 }],
        invoice: null,
        voided: [],
      });
    expect(await countEvents()).toBe(before);
    expect((await get(`/api/invoices/preview?year=2025&month=3&tutorId=${ivy}`, otherToken)).status).toBe(403);
    // Nothing is locked: the tutor may still correct the month.
    expect((await lesson('2025-03-04', 0.5)).statusCode).toBe(200);
    await expect.poll(async () => (await preview()).earnings).toBe(80);
  });

  it('withdraws an unconfirmed invoice: the reference is void, the month unlocked, and a new number is given', async () => {
    const { invoice: first } = await ok('/api/invoices/save', { tutorId: ivy, year: 2025, month: 3 }, ivyToken);
    expect((await lesson('2025-03-10', 1)).statusCode).toBe(409);
    await expect.poll(async () => (await preview()).invoice?.reference).toBe(first.reference);

    const refused = await post('/api/invoices/withdraw', { id: invoiceId() }, otherToken);
    expect(refused.statusCode).toBe(403);
    expect((await post('/api/invoices/withdraw', { id: `${ivy}_2020-01` })).statusCode).toBe(404);

    const withdrawn = await ok('/api/invoices/withdraw', { id: invoiceId() }, ivyToken);
    expect(withdrawn.invoice.voided).toEqual([first.reference]);
    await expect.poll(async () => (await preview()).voided).toEqual([first.reference]);
    expect((await preview()).invoice).toBeNull();
    const list = await listed();
    expect(list.invoices).toMatchObject([{ reference: first.reference, void: true }]);
    expect(list.totals.commission).toBe(0);
    // The month is open again.
    expect((await lesson('2025-03-10', 1)).statusCode).toBe(200);

    const { invoice: second } = await ok('/api/invoices/save', { tutorId: ivy, year: 2025, month: 3 });
    expect(second.reference).not.toBe(first.reference);
    expect(second.totalCommission).toBe(30);
    await expect
      .poll(async () => (await listed()).invoices.map((row: Json) => [row.reference, row.void]))
      .toEqual(
        expect.arrayContaining([
          [first.reference, true],
          [second.reference, false],
        ]),
      );
    expect((await listed()).totals.commission).toBe(30);

    // A confirmed invoice stays as it is, and so does its month's lock.
    await ok('/api/invoices/confirm', { id: invoiceId() }, ivyToken);
    const late = await post('/api/invoices/withdraw', { id: invoiceId() });
    expect(late.statusCode).toBe(409);
    expect(late.json().error.message).toMatch(/confirmed/);
    expect((await lesson('2025-03-17', 1)).statusCode).toBe(409);
    expect((await preview()).invoice).toMatchObject({ reference: second.reference, confirmed: true });
  });
});
