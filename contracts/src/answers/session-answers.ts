import { z } from 'zod';
import { sessionUser } from '../roles';

/**
 * `GET /auth/local/me`: the signed-in user as they are now (a role taken back is gone), with the
 * agency's time zone, so the screens' "today" is the agency's wherever the browser is.
 */
export const sessionAnswer = z.object({
  user: sessionUser.extend({ name: z.string() }),
  agency: z.object({ timeZone: z.string() }),
});
export type SessionAnswer = z.infer<typeof sessionAnswer>;
