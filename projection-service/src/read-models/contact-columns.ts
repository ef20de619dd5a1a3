import type { ContactDetails } from '@agency/contracts';

/**
 * The columns a contact fills, in this order, in every read model that holds one
 * (client contacts, tutors): first_name, last_name, address, postcode, email, phone.
 */
export const contactColumns = (contact: ContactDetails) => [
  contact.firstName,
  contact.lastName,
  JSON.stringify(contact.address),
  contact.postcode,
  contact.email,
  JSON.stringify(contact.phone),
];
