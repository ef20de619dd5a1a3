import { seedAgencyDetails } from '@agency/contracts';
import { pdfText } from '@agency/scripts/testing/pdf-text';
import { describe, expect, it } from 'vitest';
import { renderInvoiceDocument } from './tutor-invoice-document';

describe("the tutor's invoice document", () => {
  it("explains each item's commission: the rate on each lesson, rounded to the penny per lesson", async () => {
    const pdf = await renderInvoiceDocument(
      {
        reference: 'AB0001',
        date: '2025-07-01',
        month: '2025-06',
        dueDate: '2025-07-15',
        tutor: { name: 'Ada Lovelace', address: ['1 High Street'], postcode: 'OX1 1AA', email: 'ada@example.com' },
        items: [
          { commissionBp: 2500, earningsPence: 43_500, commissionPence: 10_876 },
          { commissionBp: 2000, earningsPence: 5_000, commissionPence: 1_000 },
        ],
        earningsPence: 48_500,
        commissionPence: 11_876,
      },
      seedAgencyDetails,
    );
    // pdfkit breaks a paragraph into lines: the words are read back as one text.
    const text = pdfText(pdf).replace(/\s+/g, ' ');
    expect(text).toContain('Earnings of £435.00 at 25% commission');
    expect(text).toContain(
      '25% commission on each lesson, rounded to the penny per lesson: £108.76 (25% of £435.00 in one sum would be £108.75: the £0.01 between them is the rounding of each lesson).',
    );
    expect(text).toContain('20% commission on each lesson, rounded to the penny per lesson: £10.00.');
  });
});
