import { describe, expect, it } from 'vitest';
import { contactFieldName, toContactFormValues, toContactPayload } from './contact-form-values';

describe('contact form values', () => {
  it('fills four address lines and two phone slots', () => {
    const values = toContactFormValues({ address: ['1 High St'], phone: [{ type: 'Home', number: '0123' }] });
    expect(values.address).toEqual(['1 High St', '', '', '']);
    expect(values.phone).toEqual([
      { type: 'Home', number: '0123' },
      { type: 'Mobile', number: '' },
    ]);
  });

  it('drops blank address lines and phone slots without a number when saving', () => {
    const payload = toContactPayload({
      firstName: ' Ann ',
      lastName: 'Lee',
      address: ['1 High St', '  ', 'Oxford', ''],
      postcode: 'OX1 1AA',
      email: 'ann@example.com',
      phone: [
        { type: 'Mobile', number: '' },
        { type: 'Work', number: ' 07700 900000 ' },
      ],
      dob: '',
    });
    expect(payload).toEqual({
      firstName: 'Ann',
      lastName: 'Lee',
      address: ['1 High St', 'Oxford'],
      postcode: 'OX1 1AA',
      email: 'ann@example.com',
      phone: [{ type: 'Work', number: '07700 900000' }],
      dob: null,
    });
  });

  it('keeps a birth date as YYYY-MM-DD', () => {
    expect(toContactFormValues({ dob: '1980-02-03T00:00:00.000Z' }).dob).toBe('1980-02-03');
    expect(toContactPayload(toContactFormValues({ dob: '1980-02-03' })).dob).toBe('1980-02-03');
  });

  it('puts server field errors on the matching inputs', () => {
    expect(contactFieldName('address')).toBe('address.0');
    expect(contactFieldName('phone')).toBe('phone.0.number');
    expect(contactFieldName('phone.1')).toBe('phone.1.number');
    expect(contactFieldName('email')).toBe('email');
  });

  it("reads the tutor body's contact-prefixed field names the same way", () => {
    expect(contactFieldName('contact.firstName')).toBe('firstName');
    expect(contactFieldName('contact.address')).toBe('address.0');
    expect(contactFieldName('contact.phone')).toBe('phone.0.number');
  });
});
