import type { Contact, NewContact } from './api';

export const addressLines = 4;
export const phoneSlots = 2;
export const phoneTypes = ['Home', 'Mobile', 'Work'] as const;

/** What the contact form edits: always four address lines and two phone slots. */
export type ContactFormValues = {
  firstName: string;
  lastName: string;
  address: string[];
  postcode: string;
  email: string;
  phone: { type: string; number: string }[];
  dob: string;
};

function fill<T>(items: T[], length: number, blank: () => T): T[] {
  return Array.from({ length }, (_, index) => items[index] ?? blank());
}

export function toContactFormValues(contact?: Partial<Contact>): ContactFormValues {
  return {
    firstName: contact?.firstName ?? '',
    lastName: contact?.lastName ?? '',
    address: fill(contact?.address ?? [], addressLines, () => ''),
    postcode: contact?.postcode ?? '',
    email: contact?.email ?? '',
    phone: fill(
      (contact?.phone ?? []).map((phone) => ({ type: phone.type || 'Home', number: phone.number ?? '' })),
      phoneSlots,
      () => ({ type: 'Mobile', number: '' }),
    ),
    dob: contact?.dob ? contact.dob.slice(0, 10) : '',
  };
}

/** The contact to send: text trimmed, blank address lines and phone slots without a number dropped. */
export function toContactPayload(values: ContactFormValues): NewContact {
  return {
    firstName: values.firstName.trim(),
    lastName: values.lastName.trim(),
    address: values.address.map((line) => line.trim()).filter((line) => line !== ''),
    postcode: values.postcode.trim(),
    email: values.email.trim(),
    phone: values.phone
      .map((phone) => ({ type: phone.type, number: phone.number.trim() }))
      .filter((phone) => phone.number !== ''),
    dob: values.dob ? values.dob : null,
  };
}

/** Where a server field error belongs on the form. */
export function contactFieldName(field: string): string {
  if (field === 'address') return 'address.0';
  if (field === 'phone') return 'phone.0.number';
  const phone = /^phone\.(\d+)$/.exec(field);
  if (phone) return `phone.${phone[1]}.number`;
  return field;
}
