import { HttpError } from '@agency/platform';
import { describe, expect, it } from 'vitest';
import { isTooCommon, refuseCommonPassword, TOO_COMMON_PASSWORD } from './common-passwords';

describe('the common-password rule', () => {
  it('refuses a password of the common list, in any case, l33t or reversed spelling', () => {
    for (const password of ['password1', 'qwerty123', 'Password1', 'P@ssw0rd', '1q2w3e4r5t', 'iloveyou1', '1drowssap'])
      expect(isTooCommon(password), password).toBe(true);
  });

  it('refuses what a guesser finds in under a million tries: a common word with digits, a walk, a sequence, a repeat', () => {
    for (const password of ['letmein123', 'summer2024', 'monkey123', 'qwertyu', 'abcdefg', 'aaaaaaa', '1234567'])
      expect(isTooCommon(password), password).toBe(true);
  });

  it('accepts the passwords the tests, the demo data and the e2e runs use, and strong ones', () => {
    for (const password of [
      'admin-password-1',
      'demo-partner-password',
      'crash-test-password-1',
      'e2e-admin-password',
      'amy-password',
      'tom-password',
      'tutor-password',
      'partner-password',
      'long-enough',
      'least-privilege-1',
      'correct-horse-battery-staple',
      'Tr0ub4dor&3',
      'k7#Vq9!zLm',
    ])
      expect(isTooCommon(password), password).toBe(false);
  });

  it('answers a 400 whose message sits on the password field', () => {
    expect(() => refuseCommonPassword('amy-password')).not.toThrow();
    try {
      refuseCommonPassword('qwerty123');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(HttpError);
      expect(error).toMatchObject({
        statusCode: 400,
        code: 'invalid_input',
        message: TOO_COMMON_PASSWORD,
        fields: { password: 'This password is too common. Choose another.' },
      });
    }
  });
});
