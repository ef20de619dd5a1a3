import { startTestProduct, TEST_ADMIN, type TestProduct } from '@agency/scripts/testing/test-product';
import dayjs from 'dayjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const contact = (firstName: string, lastName: string) => ({
  firstName,
  lastName,
  address: ['1 High Street'],
  postcode: 'OX1 1AA',
  email: `${firstName}.${lastName}@example.com`.toLowerCase(),
  phone: [{ type: 'Mobile', number: '07700 900001' }],
});

/** The dashboard by role, from the read models. */
describe('GET /api/dashboard', () => {
  let product: TestProduct;
  let admin: ReturnType<TestProduct['api']>;
  let tutor: ReturnType<TestProduct['api']>;
  const ids = { busy: '', idle: '', child: '' };
  const now = dayjs(new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/London' }).format(new Date()));
  const last = now.subtract(1, 'month');

  beforeAll(async () => {
    product = await startTestProduct();
    admin = product.api(await product.login(TEST_ADMIN.username, TEST_ADMIN.password));
    const newTutor = async (first: string, prefix: string) =>
      (
        await admin.post('/api/tutors/contact', {
          contact: contact(first, 'Dash'),
          tutor: { username: `${first}dash`.toLowerCase(), invoicePrefix: prefix, startDate: '2024-01-01' },
        })
      ).tutor.id as string;
    ids.busy = await newTutor('Bea', 'BD');
    ids.idle = await newTutor('Ida', 'ID');
    const { client } = await admin.post('/api/clients/contact', contact('Pat', 'Parent'));
    const { child } = await admin.post(`/api/clients/child/${client.id}`, {
      firstName: 'Kim',
      lastName: 'Parent',
      dob: '2014-01-01',
    });
    ids.child = child.id;
    const { engagement } = await admin.post('/api/tutors/engagement', {
      tutorId: ids.busy,
      studentId: child.id,
      rate: 40,
      commissionPct: 25,
      partnerPct: 10,
      startDate: '2024-01-01',
      subjects: ['Maths'],
    });
    for (const [month, duration] of [
      [now, 2],
      [last, 1],
    ] as const) {
      await admin.post(`/api/lessons/lesson?month=${month.format('YYYY-MM')}`, {
        tutorId: ids.busy,
        lesson: { engagementId: engagement.id, date: month.startOf('month').format('YYYY-MM-DD'), duration },
      });
    }
    await admin.post('/api/invoices/save', { tutorId: ids.busy, year: last.year(), month: last.month() + 1 });
    await admin.post('/api/users', {
      username: 'bea',
      password: 'bea-password-1',
      role: 'tutor',
      tutorId: ids.busy,
      name: 'Bea',
    });
    tutor = product.api(await product.login('bea', 'bea-password-1'));
  });
  afterAll(() => product?.dispose());

  it("gives staff the agency's month against the last, and what needs someone", async () => {
    const answer = await admin.get('/api/dashboard');
    expect(answer.thisMonth).toMatchObject({ lessonCount: 1, earnings: 80, commission: 20, partnerCommission: 2 });
    expect(answer.lastMonth).toMatchObject({ lessonCount: 1, earnings: 40, period: last.format('MMMM YYYY') });
    expect(answer.awaitingConfirmation).toEqual([
      expect.objectContaining({ tutorId: ids.busy, tutorName: 'Bea Dash', year: last.year(), month: last.month() + 1 }),
    ]);
    expect(answer.confirmedUnpaid).toEqual([]);
    expect(answer.tutorsWithoutLessons).toEqual([{ tutorId: ids.idle, name: 'Ida Dash' }]);
    expect(answer.currentStudents).toEqual([]);

    await admin.post('/api/invoices/confirm', { id: answer.awaitingConfirmation[0].id });
    const after = await admin.get('/api/dashboard');
    expect(after.awaitingConfirmation).toEqual([]);
    expect(after.confirmedUnpaid).toMatchObject([{ reference: answer.awaitingConfirmation[0].reference, paid: 0 }]);
  });

  it('gives a tutor only their own month, invoices and current students, without partner shares', async () => {
    const answer = await tutor.get('/api/dashboard');
    expect(answer.thisMonth).toEqual({
      year: now.year(),
      month: now.month() + 1,
      period: now.format('MMMM YYYY'),
      lessonCount: 1,
      earnings: 80,
      commission: 20,
    });
    expect(answer.currentStudents).toEqual([{ studentId: ids.child, name: 'Kim Parent' }]);
    expect(answer.tutorsWithoutLessons).toEqual([]);
    expect(answer.confirmedUnpaid).toEqual([]);
    expect(answer.unpaidFamilyInvoices).toEqual([]);
  });
});
