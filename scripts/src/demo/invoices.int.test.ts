import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestProduct, TEST_ADMIN, type TestProduct } from '../testing/test-product';
import { seedInvoices } from './invoices';
import { seedLessons } from './lessons';

type Row = { paid: number; confirmed: boolean; commission: number };

describe('demo invoices', () => {
  let product: TestProduct;
  let token: string;
  const get = (url: string) => product.api(token).get(url);
  const post = (url: string, payload: object) => product.api(token).post(url, payload);
  const monthsBack = (back: number) => {
    const date = new Date();
    date.setUTCDate(1);
    date.setUTCMonth(date.getUTCMonth() - back);
    return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1 };
  };

  beforeAll(async () => {
    product = await startTestProduct();
    token = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
  }, 120_000);
  afterAll(() => product?.dispose());

  it('leaves invoices in every status and every report group filled', async () => {
    for (const name of ['Ann', 'Bob', 'Cat', 'Dev', 'Eve', 'Fay']) {
      const contact = {
        firstName: name,
        lastName: 'Demo',
        address: ['1 High Street'],
        postcode: 'OX1 1AA',
        email: `${name}.demo@example.com`.toLowerCase(),
        phone: [{ type: 'Mobile', number: '07700 900000' }],
      };
      const { tutor } = await post('/api/tutors/contact', {
        contact,
        tutor: { username: `${name}demo`.toLowerCase(), invoicePrefix: `${name[0]}D`, startDate: '2020-01-01' },
      });
      // Eve and Fay teach nobody: their months have no lessons.
      if (name === 'Eve' || name === 'Fay') continue;
      const { client } = await post('/api/clients/contact', { ...contact, firstName: 'Parent', lastName: name });
      const { child } = await post(`/api/clients/child/${client.id}`, {
        firstName: 'Kid',
        lastName: name,
        dob: '2014-01-01',
      });
      await post('/api/tutors/engagement', {
        tutorId: tutor.id,
        studentId: child.id,
        rate: 40,
        commissionPct: 25,
        partnerPct: 10,
        startDate: '2020-01-01',
        subjects: ['Maths'],
      });
    }
    await seedLessons(product, token);
    expect(await seedInvoices(product, token)).toMatch(/^\d+ invoices \(\d+ paid/);

    const rows: Row[] = [];
    for (const back of [3, 2, 1]) {
      const { year, month } = monthsBack(back);
      rows.push(...(await get(`/api/invoices/?year=${year}&month=${month}`)).invoices);
    }
    expect(rows.some((row) => row.paid > 0 && row.paid >= row.commission)).toBe(true);
    expect(rows.some((row) => row.paid > 0 && row.paid < row.commission)).toBe(true);
    expect(rows.some((row) => row.confirmed && row.paid === 0 && row.commission > 0)).toBe(true);
    expect(rows.some((row) => !row.confirmed)).toBe(true);

    const groups = new Set<number>();
    for (const back of [3, 2, 1]) {
      const { year, month } = monthsBack(back);
      for (const group of (await get(`/api/reports/invoiceStatus?year=${year}&month=${month}`)).groups) {
        groups.add(group.group);
      }
    }
    expect([...groups].sort()).toEqual([0, 1, 2, 3]);
  });
});
