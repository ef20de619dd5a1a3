import type { ContactDetails } from '@agency/contracts';

type ContactFields = Omit<ContactDetails, 'id' | 'dob'> & { dob?: string | null };

/** A contact as events record it, from a validated form body (client contacts and tutors alike). */
export function contactDetails(id: string, body: ContactFields): ContactDetails {
  const { firstName, lastName, address, postcode, email, phone } = body;
  return { id, firstName, lastName, address, postcode, email, phone, dob: body.dob ?? null };
}
