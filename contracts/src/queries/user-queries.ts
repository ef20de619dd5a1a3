import { z } from 'zod';
import { sessionUser } from '../roles';

/** `GET /api/users/me`: the signed-in user with the name the header shows. */
export const currentUserAnswer = z.object({ user: sessionUser.extend({ name: z.string() }) });
export type CurrentUserAnswer = z.infer<typeof currentUserAnswer>;
