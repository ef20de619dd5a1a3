import type { UserEvent } from '@agency/contracts';
import { describe, it } from 'vitest';
import { specFor } from '../testing/given-when-then';
import { userDecider } from './user';

const given = specFor(userDecider);
const registered: UserEvent = {
  type: 'UserRegistered',
  data: { userId: 'u1', username: 'jobrien', role: 'tutor', tutorId: 't1', name: "Jane O'Brien" },
};

describe('a password reset asked for', () => {
  it('is recorded with the link it waits under and when that expires, never the token', () => {
    given([registered])
      .when({ type: 'RequestPasswordReset', linkId: 'link-1', expiresAt: '2026-11-22T11:00:00.000Z' })
      .thenEvents([
        {
          type: 'PasswordResetRequested',
          data: { userId: 'u1', linkId: 'link-1', expiresAt: '2026-11-22T11:00:00.000Z' },
        },
      ]);
  });

  it('is refused for a login nobody registered', () => {
    given([])
      .when({ type: 'RequestPasswordReset', linkId: 'link-1', expiresAt: '2026-11-22T11:00:00.000Z' })
      .thenRefused('not_found');
  });
});
