/**
 * The agency's own details, as printed on every invoice document and in the invoices page's
 * notice. One copy, so the bank account a tutor is told to pay into is the same everywhere.
 */
export const agencyDetails = {
  name: 'Oxford Tutoring Agency Ltd',
  address: ['14 Turl Street', 'Oxford'],
  postcode: 'OX1 3DH',
  email: 'accounts@oxford-tutoring.example',
  phone: '01865 000 000',
  /** The new account commission is paid into, announced in red on the invoices page. */
  bankAccount: {
    bank: 'Northern Counties Bank',
    accountName: 'Oxford Tutoring Agency Ltd',
    sortCode: '40-12-76',
    accountNumber: '31926819',
  },
  /** How long a tutor has to pay an invoice's commission. */
  paymentTermsDays: 14,
} as const;
