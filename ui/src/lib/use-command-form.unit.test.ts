import type { FieldErrors } from 'react-hook-form';
import { describe, expect, it } from 'vitest';
import { errorPaths, firstInvalidField } from './use-command-form';

/** A contact form's fields in the order it shows them. */
const shown = [
  'firstName',
  'lastName',
  'address.0',
  'address.1',
  'postcode',
  'email',
  'phone.0.type',
  'phone.0.number',
];
const message = (text: string) => ({ type: 'validate', message: text });

describe('the field a refused save focuses', () => {
  it('is the first in error in the order the form shows them, not the order they were registered in', () => {
    // Last Name registers first (its suggestion): react-hook-form's errors list it first.
    const errors = { lastName: message('Last name is required'), firstName: message('First name is required') };
    expect(firstInvalidField(shown, errors as FieldErrors)).toBe('firstName');
  });

  it('finds fields in error inside lists (an address line, a phone number)', () => {
    const errors = { phone: [{ number: message('Phone is required') }], address: [message('Address is required')] };
    expect(errorPaths(errors)).toEqual(['phone.0.number', 'address.0']);
    expect(firstInvalidField(shown, errors as unknown as FieldErrors)).toBe('address.0');
  });

  it('is none when no field the form shows is in error', () => {
    expect(firstInvalidField(shown, {} as FieldErrors)).toBeUndefined();
    expect(firstInvalidField(shown, { dob: message('Not a date') } as FieldErrors)).toBeUndefined();
  });
});
