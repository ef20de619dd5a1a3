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

/**
 * Someone asked to reset this login's password: the mail reactor sends the link. Never the token:
 * its hash stays in the command service's table, and the token itself only until it is mailed,
 * kept apart under `linkId`.
 */
export const PasswordResetRequested = defineEvent(
  'PasswordResetRequested',
  1,
  z.object({ userId: z.string(), linkId: z.string(), expiresAt: z.iso.datetime() }),
);

/**
 * An admin turned this login off: it cannot sign in or have its password reset, and its sessions
 * were ended. Its history, name and role stay; turning it on again gives it back its password.
 */
export const LoginTurnedOff = defineEvent('LoginTurnedOff', 1, z.object({ userId: z.string() }));
/** An admin turned this login on again. */
export const LoginTurnedOn = defineEvent('LoginTurnedOn', 1, z.object({ userId: z.string() }));

export const userEvents = [
  UserRegistered,
  UserRoleChanged,
  UserPasswordChanged,
  PasswordResetRequested,
  LoginTurnedOff,
  LoginTurnedOn,
] as const;
export type UserEvent = EventOf<(typeof userEvents)[number]>;
