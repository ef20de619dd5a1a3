import { z } from 'zod';
import { role } from '../roles';
import { commandId, requiredText } from '../values';

/** An admin creates a login (the command-line `npm run user -- add` uses the same rules). */
export const newUserBody = z.object({
  commandId,
  username: requiredText('Username is required'),
  password: z
    .string({ error: 'Please enter a password' })
    .min(7, 'Password must be at least 7 characters')
    .max(200, 'Too long (200 characters at most)'),
  role,
  tutorId: z
    .string()
    .trim()
    .min(1)
    .nullish()
    .transform((value) => value ?? null),
  name: requiredText('Name is required'),
});
export type NewUserBody = z.infer<typeof newUserBody>;
