import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fieldVisibility } from './field-visibility';
import { sessionToken } from './session-token';

/** A route that forgets the rule: the service's hook still applies it. */
describe('fieldVisibility: every JSON answer passes the role rule', () => {
  const app = Fastify();
  const token = (role: 'admin' | 'partner' | 'tutor', sid = 'live') =>
    app.jwt.sign({ id: `${role}-1`, username: role, role, sid });
  const answer = (role?: 'admin' | 'partner' | 'tutor', sid?: string) =>
    app.inject({
      method: 'GET',
      url: '/careless',
      headers: role ? { authorization: `Bearer ${token(role, sid)}` } : {},
    });
  // Sessions as the token check sees them: 'live' is, any other is over.
  const sessions = {
    check: async (sid: string) =>
      sid === 'live' ? { live: true as const } : { live: false as const, reason: 'logout' as const },
  };

  beforeAll(async () => {
    await app.register(sessionToken, { secret: 'unit-secret-unit-secret-unit-secret', sessions });
    await app.register(fieldVisibility);
    app.get('/careless', async (request) => {
      await app.authenticate(request).catch(() => undefined);
      return { lessons: [{ amount: 30, partnerCommission: 0.6 }], partnerRate: 0.1 };
    });
    await app.ready();
  });
  afterAll(() => app.close());

  it('drops partner fields from a tutor’s answer and from an answer to no session', async () => {
    expect((await answer('tutor')).json()).toEqual({ lessons: [{ amount: 30 }] });
    expect((await answer()).json()).toEqual({ lessons: [{ amount: 30 }] });
  });

  it('drops them for a partner token whose session is over', async () => {
    expect((await answer('partner', 'ended')).json()).toEqual({ lessons: [{ amount: 30 }] });
  });

  it('keeps them for admins and partners', async () => {
    for (const role of ['admin', 'partner'] as const) {
      expect((await answer(role)).json()).toEqual({
        lessons: [{ amount: 30, partnerCommission: 0.6 }],
        partnerRate: 0.1,
      });
    }
  });
});
