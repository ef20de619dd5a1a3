import { z } from 'zod';
import { LIMITS } from '../limits';
import { staffRole } from '../roles';
import { commandId, requiredText } from '../values';

/** An admin creates a login (the command-line `npm run user -- add` uses the same rules). */
export const newUserBody = z.object({
  commandId,
  username: requiredText('Username is required', LIMITS.maxUsernameLength),
  password: z
    .string({ error: 'Please enter a password' })
    .min(7, 'Password must be at least 7 characters')
    .max(LIMITS.maxPasswordLength, `Too long (${LIMITS.maxPasswordLength} characters at most)`),
  role: staffRole,
  tutorId: z
    .string()
    .max(LIMITS.maxIdLength)
    .trim()
    .min(1)
    .nullish()
    .transform((value) => value ?? null),
  name: requiredText('Name is required'),
});

/** `POST /api/users/active/:userId`: an admin turns a login off (`active: false`) or on again. */
export const loginActiveBody = z.object({
  commandId,
  active: z.boolean({ error: 'active must be true or false' }),
});
