import { z } from 'zod';
import { LIMITS } from '../limits';

export const MIN_PASSWORD_LENGTH = 7;

const newPassword = z
  .string({ error: 'Please enter a password' })
  .min(1, 'Please enter a password')
  .min(MIN_PASSWORD_LENGTH, `Password must be at least ${MIN_PASSWORD_LENGTH} characters`)
  .max(LIMITS.maxPasswordLength, `Password is too long (${LIMITS.maxPasswordLength} characters at most)`);

const code = (message: string) =>
  z.string({ error: message }).max(LIMITS.maxCodeLength, message).trim().min(1, message);

/** `POST /auth/local`: a login. */
export const loginBody = z.object({
  username: z.string({ error: 'Username is required' }).trim().min(1, 'Username is required').max(100),
  password: z.string({ error: 'Password is required' }).min(1, 'Password is required').max(200),
});

/** `POST /auth/local/keepalive` and `/logout`: the session is the token's; the body names nothing. */
export const sessionBody = z.object({});

export const activationBody = z.object({
  activationCode: code('The activation code is missing'),
  username: z
    .string({ error: 'Please enter your username' })
    .max(LIMITS.maxUsernameLength, 'Username is too long')
    .trim()
    .min(1, 'Please enter your username'),
  password: newPassword,
});

/**
 * `GET /auth/local/activation?code`: the username an activation link was sent for, to fill in on
 * its page; null for any code that cannot activate (unknown, used, expired): nothing tells them apart.
 */
export const activationLookupQuery = z.object({ code: code('The activation code is missing') });
export const activationLookupAnswer = z.object({ username: z.string().nullable() });

export const resetRequestBody = z.object({
  username: z
    .string({ error: 'Username is required' })
    .max(LIMITS.maxUsernameLength, 'Too long')
    .trim()
    .min(1, 'Username is required'),
});

export const newPasswordBody = z.object({
  resetToken: code('The reset link is missing its code'),
  password: newPassword,
});
