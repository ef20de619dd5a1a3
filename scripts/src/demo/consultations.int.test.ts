import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestProduct, TEST_ADMIN, type TestProduct } from '../testing/test-product';
import { seedConsultations } from './consultations';

type Row = {
  date: string;
  assessment: boolean;
  invoiceReference: string | null;
  amount: number;
  paid: number;
  cancelled: boolean;
  creditNoteReference: string | null;
  replaced: { reference: string; creditNoteReference: string | null }[];
};

describe('demo consultations', () => {
  let product: TestProduct;
  let token: string;
  const post = (url: string, payload: object) => product.api(token).post(url, payload);

  beforeAll(async () => {
    product = await startTestProduct();
    token = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
  }, 120_000);
  afterAll(() => product?.dispose());

  it('records consultations over the last three months, some assessed, with invoices in every state', async () => {
    for (let n = 0; n < 8; n++) {
      const { client } = await post('/api/clients/contact', {
        firstName: 'Parent',
        lastName: `Demo${n}`,
        address: ['1 High Street'],
        postcode: 'OX1 1AA',
        email: `parent.demo${n}@example.com`,
        phone: [{ type: 'Mobile', number: '07700 900000' }],
      });
      await post(`/api/clients/child/${client.id}`, { firstName: 'Kid', lastName: `Demo${n}`, dob: '2014-01-01' });
    }
    expect(await seedConsultations(product, token)).toMatch(/^8 consultations \(\d+ with assessments/);
    const rows = (await product.api(token).get('/api/consultations')).consultations as Row[];
    expect(rows).toHaveLength(8);
    const earliest = new Date();
    earliest.setUTCDate(earliest.getUTCDate() - 95);
    for (const row of rows) {
      expect(row.date >= earliest.toISOString().slice(0, 10)).toBe(true);
      expect(row.invoiceReference).toMatch(/^OTA\d{5}$/);
    }
    expect(rows.some((row) => row.assessment)).toBe(true);
    const live = rows.filter((row) => !row.cancelled);
    expect(live.some((row) => row.paid === row.amount)).toBe(true);
    expect(live.some((row) => row.paid > 0 && row.paid < row.amount)).toBe(true);
    expect(live.some((row) => row.paid === 0)).toBe(true);
    expect(rows.some((row) => row.cancelled && row.creditNoteReference)).toBe(true);
    // A consultation changed after its invoice: billed again at its new amount, the invoice it
    // replaced credited by a credit note of its own (its own invoice has none).
    expect(
      rows.some(
        (row) =>
          !row.cancelled && row.amount === 200 && !row.creditNoteReference && row.replaced[0]?.creditNoteReference,
      ),
    ).toBe(true);
  });
});
