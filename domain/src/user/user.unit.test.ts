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

describe('turning a login off and on', () => {
  const admin = (userId: string): UserEvent => ({
    type: 'UserRegistered',
    data: { userId, username: userId, role: 'admin', tutorId: null, name: `Admin ${userId}` },
  });
  const off: UserEvent = { type: 'LoginTurnedOff', data: { userId: 'u1' } };

  it('turns a login off, once: turning it off again records nothing', () => {
    // A tutor's login: how many admins are on does not matter.
    given([registered]).when({ type: 'TurnLoginOff', otherActiveAdmins: 0 }).thenEvents([off]);
    given([registered, off]).when({ type: 'TurnLoginOff', otherActiveAdmins: 1 }).thenEvents([]);
  });

  it('turns it on again, once', () => {
    given([registered, off])
      .when({ type: 'TurnLoginOn' })
      .thenEvents([{ type: 'LoginTurnedOn', data: { userId: 'u1' } }]);
    given([registered]).when({ type: 'TurnLoginOn' }).thenEvents([]);
  });

  it('never turns off the last admin login that is on', () => {
    given([admin('a2')])
      .when({ type: 'TurnLoginOff', otherActiveAdmins: 0 })
      .thenRefused('conflict', /only admin login that is on/);
    given([admin('a2')])
      .when({ type: 'TurnLoginOff', otherActiveAdmins: 1 })
      .thenEvents([{ type: 'LoginTurnedOff', data: { userId: 'a2' } }]);
  });

  it('refuses a login nobody registered', () => {
    given([]).when({ type: 'TurnLoginOff', otherActiveAdmins: 1 }).thenRefused('not_found');
    given([]).when({ type: 'TurnLoginOn' }).thenRefused('not_found');
  });

  it('sends no password reset to a login that is off', () => {
    given([registered, off])
      .when({ type: 'RequestPasswordReset', linkId: 'link-1', expiresAt: '2026-11-22T11:00:00.000Z' })
      .thenRefused('conflict', 'This login has been turned off.');
  });
});
