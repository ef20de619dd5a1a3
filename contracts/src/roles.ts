import { z } from 'zod';

export const role = z.enum(['admin', 'partner', 'tutor']);
export type Role = z.infer<typeof role>;

/** Who is acting: carried in the session token and in every event's metadata. */
export const sessionUser = z.object({
  id: z.string(),
  username: z.string(),
  role,
  tutorId: z.string().optional(),
});
export type SessionUser = z.infer<typeof sessionUser>;
