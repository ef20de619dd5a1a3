import { describe, expect, it } from 'vitest';
import { contactBody } from './commands/client-commands';
import { tutorBody } from './commands/tutor-commands';
import { isSingleEmailAddress, SINGLE_EMAIL_MESSAGE } from './limits';

const contact = {
  firstName: 'Ann',
  lastName: 'Lee',
  address: ['1 Road'],
  postcode: 'OX1 1AA',
  email: 'ann@example.com',
  phone: [{ type: 'Home', number: '0100' }],
};

const LISTS = [
  'ann@example.com, bob@example.com',
  'ann@example.com,bob@example.com',
  'ann@example.com;bob@example.com',
  'ann@example.com bob@example.com',
  'Ann <ann@example.com>',
  'ann@example.com\nbcc@example.com',
  'ann@b@example.com',
  'ann',
  '"ann"@example.com',
];

describe('a contact e-mail is one address', () => {
  it('accepts one address, surrounding spaces trimmed', () => {
    for (const email of ['ann@example.com', 'a.b+tag@mail.example.co.uk', '  ann@example.com  ']) {
      expect(isSingleEmailAddress(email.trim()), email).toBe(true);
      expect(contactBody.safeParse({ ...contact, email }).success, email).toBe(true);
      expect(
        tutorBody.safeParse({ contact: { ...contact, email }, tutor: { username: 'ann', invoicePrefix: 'AL' } })
          .success,
      ).toBe(true);
    }
  });

  it('refuses a list of addresses, a name with brackets or no address at all, for families and tutors', () => {
    for (const email of LISTS) {
      const family = contactBody.safeParse({ ...contact, email });
      expect(family.success, email).toBe(false);
      expect(
        family.error?.issues.map((issue) => issue.message),
        email,
      ).toEqual([SINGLE_EMAIL_MESSAGE]);
      const tutor = tutorBody.safeParse({
        contact: { ...contact, email },
        tutor: { username: 'ann', invoicePrefix: 'AL' },
      });
      expect(tutor.success, email).toBe(false);
    }
  });

  it('keeps the one message for a blank e-mail', () => {
    const blank = contactBody.safeParse({ ...contact, email: '  ' });
    expect(blank.error?.issues.map((issue) => issue.message)).toEqual(['Email is required']);
  });
});
