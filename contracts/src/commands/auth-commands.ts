import { z } from 'zod';

export const MIN_PASSWORD_LENGTH = 7;

const newPassword = z
  .string({ error: 'Please enter a password' })
  .min(1, 'Please enter a password')
  .min(MIN_PASSWORD_LENGTH, `Password must be at least ${MIN_PASSWORD_LENGTH} characters`)
  .max(200, 'Password is too long (200 characters at most)');

const code = (message: string) => z.string({ error: message }).trim().min(1, message).max(200, message);

export const activationBody = z.object({
  activationCode: code('The activation code is missing'),
  username: z
    .string({ error: 'Please enter your username' })
    .trim()
    .min(1, 'Please enter your username')
    .max(100, 'Username is too long'),
  password: newPassword,
});

export const resetRequestBody = z.object({
  username: z.string({ error: 'Username is required' }).trim().min(1, 'Username is required').max(200, 'Too long'),
});

export const newPasswordBody = z.object({
  resetToken: code('The reset link is missing its code'),
  password: newPassword,
});
