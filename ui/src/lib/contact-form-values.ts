import type { ContactDetails } from '@agency/contracts';

export const addressLines = 4;
export const phoneSlots = 2;
export const phoneTypes = ['Home', 'Mobile', 'Work'] as const;

/** The fields every contact form edits (a family's contact or a tutor's), as the events record them. */
export type ContactFields = Omit<ContactDetails, 'id' | 'dob'>;

export type Phone = ContactFields['phone'][number];

/** A contact as the API takes it; only a family's contact has a date of birth. */
export type ContactInput = ContactFields & { dob?: string | null };

/** The contact form's values: the contact fields and an optional date of birth. */
export type ContactFormValues = ContactFields & { dob: string };

function fill<T>(items: T[], length: number, blank: () => T): T[] {
  return Array.from({ length }, (_, index) => items[index] ?? blank());
}

export function toContactFields(contact?: Partial<ContactInput>): ContactFields {
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
  };
}

export function toContactFormValues(contact?: Partial<ContactInput>): ContactFormValues {
  return { ...toContactFields(contact), dob: contact?.dob ? contact.dob.slice(0, 10) : '' };
}

/** What to send: text trimmed, blank address lines and phone slots without a number dropped. */
export function cleanContactFields(values: ContactFields): ContactFields {
  return {
    firstName: values.firstName.trim(),
    lastName: values.lastName.trim(),
    address: values.address.map((line) => line.trim()).filter((line) => line !== ''),
    postcode: values.postcode.trim(),
    email: values.email.trim(),
    phone: values.phone
      .map((phone) => ({ type: phone.type, number: phone.number.trim() }))
      .filter((phone) => phone.number !== ''),
  };
}

export function toContactPayload(values: ContactFormValues): ContactInput {
  return { ...cleanContactFields(values), dob: values.dob ? values.dob : null };
}

/** Where a server field error belongs on the form (`contact.` prefixes, as the tutor body has, are dropped). */
export function contactFieldName(field: string): string {
  const name = field.replace(/^contact\./, '');
  if (name === 'address') return 'address.0';
  if (name === 'phone') return 'phone.0.number';
  const phone = /^phone\.(\d+)$/.exec(name);
  if (phone) return `phone.${phone[1]}.number`;
  return name;
}
