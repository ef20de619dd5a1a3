import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectionTestBed } from '../testing/projection-test-bed';
import { usersProjection } from './projection';

describe('users read model', () => {
  let bed: Awaited<ReturnType<typeof projectionTestBed>>;
  beforeAll(async () => {
    bed = await projectionTestBed([usersProjection]);
  });
  afterAll(() => bed.close());

  it('holds each login with its name and current role and tutor', async () => {
    const userId = randomUUID();
    const streamId = `user-${userId}`;
    await bed.given(
      {
        streamId,
        type: 'UserRegistered',
        data: { userId, username: 'ada', role: 'tutor', tutorId: 't-1', name: 'Ada L' },
      },
      { streamId, type: 'UserPasswordChanged', data: { userId, reason: 'set-by-admin' } },
      { streamId, type: 'UserRoleChanged', data: { userId, role: 'partner', tutorId: null } },
    );
    expect(await bed.rows('select id, username, role, tutor_id, name from users where id = $1', [userId])).toEqual([
      { id: userId, username: 'ada', role: 'partner', tutor_id: null, name: 'Ada L' },
    ]);
  });
});
