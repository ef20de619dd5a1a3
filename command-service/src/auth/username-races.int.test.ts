import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { startTestProduct, TEST_ADMIN, type TestProduct } from '@agency/scripts/testing/test-product';
import { contact, testRequests } from '@agency/scripts/testing/test-requests';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { onRacePoint, type RacePoint } from '../race-points';

/** Holds the first request that reaches `point` until released; later ones pass. */
function holdOnce(point: RacePoint) {
  let reached!: () => void;
  let release!: () => void;
  const arrived = new Promise<void>((resolve) => {
    reached = resolve;
  });
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let held = false;
  const remove = onRacePoint(point, async () => {
    if (held) return;
    held = true;
    reached();
    await released;
  });
  return { arrived, release, remove };
}

describe('one username across tutors and logins; activation completes or leaves nothing behind', () => {
  let product: TestProduct;
  let db: pg.Pool;
  let admin: string;
  const removals: Array<() => void> = [];

  const { post } = testRequests(
    () => product,
    () => admin,
  );
  let prefixes = 0;
  const registerTutor = (username: string, lastName = 'Racer') =>
    post('/api/tutors/contact', {
      contact: contact('Sam', lastName),
      tutor: { username, invoicePrefix: `UR${++prefixes}`, startDate: '2024-01-01' },
    });
  /** A login made the way `npm run user add` makes it. */
  const registerLogin = async (username: string) => {
    const system = { id: 'system', username: 'system', role: 'admin' as const };
    const { context } = product.command.actAs(system, randomUUID());
    return product.command.accounts.register(context, {
      username,
      password: 'login-password-1',
      role: 'admin',
      tutorId: null,
      name: username,
    });
  };
  /** Waits until a backend is blocked on a lock taken by another transaction on the usernames table. */
  const blockedOnUsernames = () =>
    expect
      .poll(
        async () =>
          (
            await db.query(
              `select count(*)::int as n from pg_stat_activity
                where wait_event_type = 'Lock' and query ilike '%command.usernames%'`,
            )
          ).rows[0].n,
        { timeout: 60_000, interval: 20 },
      )
      .toBeGreaterThan(0);
  /** Events of a type naming `username`, read through the product's store (usernames are sealed at rest). */
  const eventsNaming = async (type: string, username: string) => {
    const events = await product.command.deps.store.readAll({ limit: 100_000 });
    return events.filter((event) => event.type === type && event.data.username === username).length;
  };
  const holders = async (name: string) => ({
    reservations: (await db.query('select tutor_id, user_id from command.usernames where name = $1', [name])).rows,
    accounts: (await db.query('select user_id from auth.accounts where lower(username) = $1', [name])).rows,
    tutors: await eventsNaming('TutorRegistered', name),
    users: await eventsNaming('UserRegistered', name),
  });

  beforeAll(async () => {
    product = await startTestProduct();
    db = new pg.Pool({ connectionString: product.databaseUrl });
    admin = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
  });
  afterEach(() => {
    for (const remove of removals.splice(0)) remove();
  });
  afterAll(async () => {
    await db?.end();
    await product?.dispose();
  });

  it('a tutor saved while a login of the same name is being made: the login, whose reservation came first, wins', async () => {
    const hold = holdOnce('login.usernameReserved');
    removals.push(hold.remove);
    const login = registerLogin('samclash');
    // The login's name and credentials are written, its transaction still open.
    await hold.arrived;
    const tutor = registerTutor('SamClash');
    // The tutor's reservation waits on the login's (the one key both use); then the login commits.
    await blockedOnUsernames();
    hold.release();
    await expect(login).resolves.toMatchObject({ userId: expect.any(String) });
    const refused = await tutor;
    expect(refused.statusCode, refused.body).toBe(409);
    expect(refused.json().error).toMatchObject({
      message: 'That username is already taken.',
      fields: { 'tutor.username': 'That username is already taken' },
    });
    const found = await holders('samclash');
    expect(found).toMatchObject({ accounts: [expect.anything()], tutors: 0, users: 1 });
    expect(found.reservations).toEqual([{ tutor_id: null, user_id: found.accounts[0].user_id }]);
  });

  it('a login made while a tutor of the same name is being saved: the tutor, whose reservation came first, wins', async () => {
    const hold = holdOnce('tutor.namesReserved');
    removals.push(hold.remove);
    const tutor = registerTutor('kimclash');
    await hold.arrived;
    const login = registerLogin('KimClash').then(
      () => 'made',
      (error: { statusCode?: number; message?: string }) => `${error.statusCode} ${error.message}`,
    );
    await blockedOnUsernames();
    hold.release();
    const saved = await tutor;
    expect(saved.statusCode, saved.body).toBe(200);
    expect(await login).toBe('409 That username is already taken.');
    const found = await holders('kimclash');
    expect(found).toMatchObject({ accounts: [], tutors: 1, users: 0 });
    expect(found.reservations).toEqual([{ tutor_id: saved.json().tutor.id, user_id: null }]);
  });

  it('an activation refused half-way (the tutor terminated meanwhile) leaves no login, and the name and code work later', async () => {
    const saved = await registerTutor('lenaactive', 'Active');
    expect(saved.statusCode, saved.body).toBe(200);
    const tutorId = saved.json().tutor.id as string;
    // An activation code as the send route stores it (only its hash).
    const code = randomBytes(32).toString('base64url');
    await db.query(
      `insert into auth.activation_codes (code_hash, tutor_id, expires_at) values ($1, $2, now() + interval '1 day')`,
      [createHash('sha256').update(code).digest('hex'), tutorId],
    );
    const activate = () =>
      product.command.app.inject({
        method: 'POST',
        url: '/auth/local/activate',
        payload: { activationCode: code, username: 'lenaactive', password: 'lena-password-1' },
      });

    const hold = holdOnce('activation.checked');
    removals.push(hold.remove);
    const activation = activate();
    // The activation found the code valid and the tutor active; then the tutor is terminated.
    await hold.arrived;
    const terminated = await post(`/api/tutors/active/${tutorId}`, { id: tutorId, active: false });
    expect(terminated.statusCode, terminated.body).toBe(200);
    hold.release();
    const refused = await activation;
    expect(refused.statusCode, refused.body).toBe(409);
    expect(refused.json().error.message).toBe('This tutor is no longer active.');
    // Nothing behind: no credentials, no user, the name the tutor's alone, the code unspent.
    expect(await holders('lenaactive')).toEqual({
      reservations: [{ tutor_id: tutorId, user_id: null }],
      accounts: [],
      tutors: 1,
      users: 0,
    });
    const unspent = await db.query('select used_at from auth.activation_codes where tutor_id = $1', [tutorId]);
    expect(unspent.rows).toEqual([{ used_at: null }]);

    // Reactivated, the tutor activates with the same code and name, and signs in.
    const back = await post(`/api/tutors/active/${tutorId}`, { id: tutorId, active: true });
    expect(back.statusCode, back.body).toBe(200);
    const done = await activate();
    expect(done.statusCode, done.body).toBe(200);
    const session = await product.api(await product.login('lenaactive', 'lena-password-1')).get('/auth/local/me');
    expect(session.user).toMatchObject({ username: 'lenaactive', role: 'tutor', tutorId });
    const found = await holders('lenaactive');
    expect(found).toMatchObject({ accounts: [expect.anything()], tutors: 1, users: 1 });
    expect(found.reservations).toEqual([{ tutor_id: tutorId, user_id: found.accounts[0].user_id }]);
  });
});
