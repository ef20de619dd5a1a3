import { z } from 'zod';

/**
 * The agency's own details: printed on every invoice document (the tutors' and the families'),
 * shown in the invoices page's red notice, and holding the family-invoice prefix, the payment
 * terms and the default consultation amount. They are events (`AgencyDetailsSet`) edited by an
 * admin on the settings screen; `seedAgencyDetails` is what the first start records, so nothing
 * changes until an admin edits them.
 */
export const agencyDetailsData = z.object({
  name: z.string(),
  address: z.array(z.string()),
  postcode: z.string(),
  email: z.string(),
  phone: z.string(),
  bankName: z.string(),
  accountName: z.string(),
  sortCode: z.string(),
  accountNumber: z.string(),
  /** Whether the red new-bank-account notice shows on the invoices page, and what it says. */
  showBankNotice: z.boolean(),
  bankNoticeText: z.string(),
  /** The prefix of every family invoice and credit note reference. */
  familyInvoicePrefix: z.string(),
  /** How long an invoice (a tutor's or a family's) gives to pay. */
  paymentTermsDays: z.number().int().min(0),
  defaultConsultationPence: z.number().int().min(0),
});
export type AgencyDetails = z.infer<typeof agencyDetailsData>;

export const seedAgencyDetails: AgencyDetails = {
  name: 'Oxford Tutoring Agency Ltd',
  address: ['14 Turl Street', 'Oxford'],
  postcode: 'OX1 3DH',
  email: 'accounts@oxford-tutoring.example',
  phone: '01865 000 000',
  bankName: 'Northern Counties Bank',
  accountName: 'Oxford Tutoring Agency Ltd',
  sortCode: '40-12-76',
  accountNumber: '31926819',
  showBankNotice: true,
  bankNoticeText: 'Please note: we have a new bank account. Please pay all commission into the new account.',
  familyInvoicePrefix: 'OTA',
  paymentTermsDays: 14,
  // The spec's default consultation amount, £175.
  defaultConsultationPence: 17_500,
};
