import { z } from 'zod';
import { role } from '../roles';
import { defineEvent, type EventOf } from './define';

/** Never a password or a hash: those stay in the command service's credential table. */
export const UserRegistered = defineEvent(
  'UserRegistered',
  1,
  z.object({ userId: z.string(), username: z.string(), role, tutorId: z.string().nullable(), name: z.string() }),
);
export const UserRoleChanged = defineEvent(
  'UserRoleChanged',
  1,
  z.object({ userId: z.string(), role, tutorId: z.string().nullable() }),
);
export const UserPasswordChanged = defineEvent(
  'UserPasswordChanged',
  1,
  z.object({ userId: z.string(), reason: z.enum(['set-by-admin', 'reset', 'activation']) }),
);

export const userEvents = [UserRegistered, UserRoleChanged, UserPasswordChanged] as const;
export type UserEvent = EventOf<(typeof userEvents)[number]>;
