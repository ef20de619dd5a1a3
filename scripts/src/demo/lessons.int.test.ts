import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestProduct, TEST_ADMIN, type TestProduct } from '../testing/test-product';
import { seedLessons } from './lessons';

describe('demo lessons', () => {
  let product: TestProduct;
  let token: string;
  const get = (url: string) => product.api(token).get(url);
  const post = (url: string, payload: object) => product.api(token).post(url, payload);

  beforeAll(async () => {
    product = await startTestProduct();
    token = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
  }, 120_000);
  afterAll(() => product?.dispose());

  it('records nothing without engagements, then a weekly lesson per engagement through the grid routes', async () => {
    const contact = {
      firstName: 'Demo',
      lastName: 'Tutor',
      address: ['1 High Street'],
      postcode: 'OX1 1AA',
      email: 'demo.tutor@example.com',
      phone: [{ type: 'Mobile', number: '07700 900000' }],
    };
    const { tutor } = await post('/api/tutors/contact', {
      contact,
      tutor: { username: 'demotutor', invoicePrefix: 'DT' },
    });
    expect(await seedLessons(product, token)).toMatch(/^0 lessons/);

    const { client } = await post('/api/clients/contact', { ...contact, lastName: 'Family', phone: contact.phone });
    const { child } = await post(`/api/clients/child/${client.id}`, {
      firstName: 'Kid',
      lastName: 'Family',
      dob: '2014-01-01',
    });
    await post('/api/tutors/engagement', {
      tutorId: tutor.id,
      studentId: child.id,
      rate: 42.5,
      commissionPct: 20,
      partnerPct: 10,
      startDate: '2020-01-01',
      subjects: ['Maths'],
    });
    const summary = await seedLessons(product, token);
    const recorded = Number(summary.split(' ')[0]);
    // About one lesson a week over three months and a bit.
    expect(recorded).toBeGreaterThan(8);

    let seen = 0;
    for (let back = 0; back <= 3; back++) {
      const date = new Date();
      date.setUTCDate(1);
      date.setUTCMonth(date.getUTCMonth() - back);
      const month = await get(`/api/lessons?year=${date.getUTCFullYear()}&month=${date.getUTCMonth() + 1}`);
      seen += month.lessons.length;
      const sum = month.lessons.reduce((total: number, lesson: { amount: number }) => total + lesson.amount * 100, 0);
      expect(Math.round(month.totals.amount * 100)).toBe(Math.round(sum));
    }
    expect(seen).toBe(recorded);
    // A second run finds every cell filled and records nothing new.
    expect(await seedLessons(product, token)).toMatch(/^0 lessons/);
  });
});
