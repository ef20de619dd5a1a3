import { z } from 'zod';
import { LIMITS } from '../limits';
import { commandId, requiredText } from '../values';
import { contactBody } from './client-commands';
import { numberFromForm, poundsFromForm } from './engagement-commands';

/** `POST /api/agency`: the settings screen's save of the agency's own details (admins only). */
export const agencyDetailsBody = z.object({
  commandId,
  name: requiredText('Name is required'),
  // The agency's address is checked as a family contact's is.
  address: contactBody.shape.address,
  postcode: contactBody.shape.postcode,
  email: contactBody.shape.email,
  phone: requiredText('Phone is required', LIMITS.maxPhoneNumberLength),
  bankName: requiredText('Bank name is required'),
  accountName: requiredText('Account name is required'),
  sortCode: requiredText('Sort code is required', 8).refine(
    (text) => /^\d{2}-?\d{2}-?\d{2}$/.test(text),
    'Use a sort code like 12-34-56',
  ),
  accountNumber: requiredText('Account number is required', 8).refine(
    (text) => /^\d{8}$/.test(text),
    'An account number is 8 digits',
  ),
  showBankNotice: z.boolean({ error: 'Show the notice must be true or false' }).default(false),
  bankNoticeText: z
    .string()
    .max(LIMITS.maxNoticeLength * 4)
    .trim()
    .max(LIMITS.maxNoticeLength, `Too long (${LIMITS.maxNoticeLength} characters at most)`)
    .default(''),
  familyInvoicePrefix: requiredText('Invoice prefix is required', LIMITS.maxInvoicePrefixLength).refine(
    (text) => /^[A-Za-z0-9]+$/.test(text),
    'Use letters and digits only',
  ),
  paymentTermsDays: numberFromForm('Payment terms are required', 'Payment terms').pipe(
    z
      .number()
      .int('Payment terms are whole days')
      .min(0, 'Payment terms cannot be negative')
      .max(LIMITS.maxPaymentTermsDays, `Payment terms are ${LIMITS.maxPaymentTermsDays} days at most`),
  ),
  defaultConsultationAmount: poundsFromForm('Default consultation amount is required', 'Default consultation amount', {
    max: LIMITS.maxMoneyPence / 100,
  }),
});
