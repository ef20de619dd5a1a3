import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { argon2Stats, createMailer, DEFAULT_LOGIN_LIMITS } from '@agency/command-service';
import { PostgresEventStore, type TokenClaims } from '@agency/platform';
import { buildApp } from '@agency/scripts/app';
import { TEST_ADMIN, type TestProduct, useTestProduct } from '@agency/scripts/testing/test-product';
import type pg from 'pg';
import { describe, expect, it } from 'vitest';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const contactOf = (firstName: string, lastName: string) => ({
  firstName,
  lastName,
  address: ['2 Mill Lane', '', 'Oxford', ''],
  postcode: 'OX2 6AA',
  email: `${firstName}.${lastName}@example.com`.toLowerCase(),
  phone: [{ type: 'Mobile', number: '07700 900001' }],
});

describe('server-side sessions, and a login throttle that counts first (real PostgreSQL)', () => {
  let product: TestProduct;
  let db: pg.Pool;
  let admin: string;

  useTestProduct((started) => {
    ({ product, db, admin } = started);
  });

  const inject = (method: 'GET' | 'POST', url: string, token?: string, payload?: object, remoteAddress?: string) =>
    product.command.app.inject({
      method,
      url,
      remoteAddress,
      ...(method === 'POST' ? { payload: payload ?? {} } : {}),
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
  const post = (url: string, payload: object = {}, token = admin, remoteAddress?: string) =>
    inject('POST', url, token, payload, remoteAddress);
  const login = (username: string, password: string, remoteAddress = '127.0.0.1') =>
    inject('POST', '/auth/local', undefined, { username, password }, remoteAddress);
  /** The token's status at a route of the command tree and at one of the query tree (the one app). */
  const statuses = async (token: string) => {
    const me = await inject('GET', '/auth/local/me', token);
    const query = await fetch(`${product.url}/api/users/me`, { headers: { authorization: `Bearer ${token}` } });
    return [me.statusCode, query.status];
  };
  const sidOf = (token: string) => product.command.app.jwt.decode<TokenClaims>(token)?.sid as string;
  const liveSessionsOf = async (userId: string) =>
    Number(
      (await db.query('select count(*) from auth.sessions where user_id = $1 and ended_at is null', [userId])).rows[0]
        .count,
    );

  let tutorCount = 0;
  /** A tutor activated through the e-mailed code (the code swapped for a known one in the database). */
  const activatedTutor = async (firstName: string, lastName: string) => {
    tutorCount++;
    const username = `${firstName}${lastName}`.toLowerCase();
    const created = await post('/api/tutors/contact', {
      contact: contactOf(firstName, lastName),
      tutor: { username, invoicePrefix: `S${tutorCount}X` },
    });
    expect(created.statusCode, created.body).toBe(200);
    const tutorId: string = created.json().tutor.id;
    expect((await post(`/api/tutors/activate/${tutorId}`)).statusCode).toBe(200);
    const code = `known-code-${tutorId}`;
    await db.query('update auth.activation_codes set code_hash = $2 where tutor_id = $1 and used_at is null', [
      tutorId,
      sha256(code),
    ]);
    const password = 'Quartz-Heron-7731';
    const activated = await post('/auth/local/activate', { activationCode: code, username, password }, '');
    expect(activated.statusCode, activated.body).toBe(200);
    return { tutorId, username, password, userId: activated.json().user.id as string, token: activated.json().token };
  };
  /** Asks for a reset link (from its own address) and swaps the e-mailed token for a known one. */
  const resetLink = async (username: string, userId: string, remoteAddress: string) => {
    const live = async () =>
      Number(
        (await db.query('select count(*) from auth.reset_tokens where user_id = $1 and used_at is null', [userId]))
          .rows[0].count,
      );
    const before = await live();
    expect((await post('/auth/local/reset', { username }, '', remoteAddress)).statusCode).toBe(200);
    // Recorded just after the answer: a known name answers as soon as an unknown one.
    await expect.poll(live, { timeout: 60_000 }).toBeGreaterThan(before);
    const link = `known-link-${remoteAddress}`;
    const swapped = await db.query(
      `update auth.reset_tokens set token_hash = $2
        where token_hash = (select token_hash from auth.reset_tokens where user_id = $1 and used_at is null
                             order by created_at desc limit 1)`,
      [userId, sha256(link)],
    );
    return swapped.rowCount ? link : undefined;
  };

  it('logout ends that session for commands and queries alike; the other sessions of the user go on', async () => {
    const first = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
    const second = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
    expect(await statuses(first)).toEqual([200, 200]);
    expect((await post('/auth/local/logout', {}, first)).statusCode).toBe(200);
    expect(await statuses(first)).toEqual([401, 401]);
    expect((await post('/auth/local/keepalive', {}, first)).statusCode).toBe(401);
    expect((await post('/api/tutors/suggest', { firstName: 'A', lastName: 'B' }, first)).statusCode).toBe(401);
    expect(await statuses(second)).toEqual([200, 200]);
    const ended = await db.query('select ended_reason from auth.sessions where id = $1', [sidOf(first)]);
    expect(ended.rows[0].ended_reason).toBe('logout');
  });

  it('a completed password reset ends every other session of the user and signs in with a new one', async () => {
    const amy = await activatedTutor('Amy', 'Pond');
    const again = (await login(amy.username, amy.password)).json().token;
    expect(await statuses(amy.token)).toEqual([200, 200]);
    const link = await resetLink(amy.username, amy.userId, '10.20.0.1');
    const done = await post('/auth/local/password', { resetToken: link, password: 'Lantern-Otter-4482' }, '');
    expect(done.statusCode, done.body).toBe(200);
    expect(await statuses(amy.token)).toEqual([401, 401]);
    expect(await statuses(again)).toEqual([401, 401]);
    expect(await statuses(done.json().token)).toEqual([200, 200]);
    expect(await liveSessionsOf(amy.userId)).toBe(1);
  });

  it('termination ends the tutor’s sessions: the token and keepalive are refused', async () => {
    const rory = await activatedTutor('Rory', 'Williams');
    expect(await statuses(rory.token)).toEqual([200, 200]);
    const ended = await post(`/api/tutors/active/${rory.tutorId}`, { id: rory.tutorId, active: false });
    expect(ended.statusCode, ended.body).toBe(200);
    expect(await statuses(rory.token)).toEqual([401, 401]);
    expect((await post('/auth/local/keepalive', {}, rory.token)).statusCode).toBe(401);
    expect((await login(rory.username, rory.password)).statusCode).toBe(403);
    expect(await liveSessionsOf(rory.userId)).toBe(0);
  });

  it('a partner role taken back ends the partner’s sessions; keepalive issues the current claims, not the token’s', async () => {
    const clara = await activatedTutor('Clara', 'Oswald');
    expect((await post(`/api/tutors/partner/${clara.tutorId}`, { partner: true })).statusCode).toBe(200);
    // Given: the tutor's sessions end too (their token says "tutor").
    expect(await statuses(clara.token)).toEqual([401, 401]);
    const partner = (await login(clara.username, clara.password)).json().token;
    expect(product.command.app.jwt.decode<TokenClaims>(partner)?.role).toBe('partner');
    expect((await inject('GET', '/api/tutors', partner)).statusCode).toBe(200);

    expect((await post(`/api/tutors/partner/${clara.tutorId}`, { partner: false })).statusCode).toBe(200);
    expect(await statuses(partner)).toEqual([401, 401]);
    expect((await post('/auth/local/keepalive', {}, partner)).statusCode).toBe(401);

    // Keepalive reads the user as they are now: a role changed under a live session is not renewed.
    const again = (await login(clara.username, clara.password)).json().token;
    await db.query("update read.users set role = 'partner' where id = $1", [clara.userId]);
    const renewed = await post('/auth/local/keepalive', {}, again);
    expect(renewed.statusCode).toBe(200);
    const cookie = renewed.cookies.find((c) => c.name === 'token')?.value as string;
    expect(product.command.app.jwt.decode<TokenClaims>(cookie)).toMatchObject({ role: 'partner', sid: sidOf(again) });
    await db.query("update read.users set role = 'tutor' where id = $1", [clara.userId]);
  });

  it('ends a session idle for more than 3600 s, and any session older than 12 h, keepalive or not', async () => {
    const token = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
    const sid = sidOf(token);
    await db.query("update auth.sessions set last_seen_at = now() - interval '3590 seconds' where id = $1", [sid]);
    expect(await statuses(token)).toEqual([200, 200]);
    // A keepalive (the UI sends one after user activity) starts the idle time again.
    expect((await post('/auth/local/keepalive', {}, token)).statusCode).toBe(200);
    await db.query("update auth.sessions set last_seen_at = last_seen_at - interval '3590 seconds' where id = $1", [
      sid,
    ]);
    expect(await statuses(token)).toEqual([200, 200]);
    await db.query("update auth.sessions set last_seen_at = now() - interval '3601 seconds' where id = $1", [sid]);
    // The app reuses a live check until the database tells it the session was shortened (plain SQL
    // here, as from another process): told at once, heard a moment later.
    await expect.poll(() => statuses(token), { timeout: 10_000 }).toEqual([401, 401]);
    expect((await post('/auth/local/keepalive', {}, token)).statusCode).toBe(401);
    expect((await db.query('select ended_reason from auth.sessions where id = $1', [sid])).rows[0].ended_reason).toBe(
      'idle',
    );

    const old = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
    await db.query("update auth.sessions set created_at = now() - interval '12 hours 1 second' where id = $1", [
      sidOf(old),
    ]);
    expect((await post('/auth/local/keepalive', {}, old)).statusCode).toBe(401);
    expect(await statuses(old)).toEqual([401, 401]);
  });

  it('an ended tutor gets no reset e-mail, and a link sent before the end sets nothing and signs nobody in', async () => {
    const donna = await activatedTutor('Donna', 'Noble');
    const early = await resetLink(donna.username, donna.userId, '10.21.0.1');
    expect(early).toBeTruthy();
    expect((await post(`/api/tutors/active/${donna.tutorId}`, { id: donna.tutorId, active: false })).statusCode).toBe(
      200,
    );
    const links = async () =>
      Number(
        (await db.query('select count(*) from auth.reset_tokens where user_id = $1', [donna.userId])).rows[0].count,
      );
    const before = await links();
    const asked = await post('/auth/local/reset', { username: donna.username }, '', '10.21.0.2');
    expect(asked.statusCode).toBe(200);
    expect(await links()).toBe(before);

    const completed = await post('/auth/local/password', { resetToken: early, password: 'Walrus-Copper-5150' }, '');
    expect(completed.statusCode).toBe(403);
    expect(completed.json().error.code).toBe('account_ended');
    expect(completed.cookies.find((c) => c.name === 'token')).toBeUndefined();
    expect(await liveSessionsOf(donna.userId)).toBe(0);
    // The password is the one before: the new one is wrong, the old one is right (and refused as ended).
    expect((await login(donna.username, 'Walrus-Copper-5150')).statusCode).toBe(401);
    expect((await login(donna.username, donna.password)).statusCode).toBe(403);
  });

  it('50 parallel wrong guesses: only the free ones are verified, the rest wait (429, Retry-After); then the user gets in', async () => {
    const made = await post('/api/users', {
      username: 'guessed',
      password: 'Marble-Falcon-2207',
      role: 'admin',
      name: 'Guessed',
    });
    expect(made.statusCode, made.body).toBe(200);
    const verifiedBefore = argon2Stats.verified;
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => login('guessed', `wrong-guess-${i}`, '10.30.0.1')),
    );
    const wrong = answers.filter((a) => a.statusCode === 401).length;
    const waiting = answers.filter((a) => a.statusCode === 429);
    expect(wrong + waiting.length).toBe(50);
    // Five free failures; a later one only once its wait (1 s, 2 s, 4 s…) has passed.
    expect(wrong).toBeGreaterThanOrEqual(5);
    expect(wrong).toBeLessThanOrEqual(8);
    expect(argon2Stats.verified - verifiedBefore).toBe(wrong);
    expect(argon2Stats.mostAtOnce).toBeLessThanOrEqual(4);
    expect(Number(waiting[0]?.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(waiting[0]?.json().error.code).toBe('too_many_attempts');

    // While the wait runs even the right password waits; it is not counted or verified.
    const verifiedNow = argon2Stats.verified;
    expect((await login('guessed', 'Marble-Falcon-2207', '10.30.0.2')).statusCode).toBe(429);
    expect(argon2Stats.verified).toBe(verifiedNow);

    // The wait passes (the stored time shifted back): the right password gets in and starts afresh.
    await db.query("update auth.login_failures set last_at = last_at - interval '1 hour' where key = 'u:guessed'");
    expect((await login('guessed', 'Marble-Falcon-2207', '10.30.0.2')).statusCode).toBe(200);
    expect((await db.query("select 1 from auth.login_failures where key = 'u:guessed'")).rowCount).toBe(0);
    expect((await login('guessed', 'wrong-again', '10.30.0.2')).statusCode).toBe(401);
  });

  it('counts survive a new app instance on the same database; TRUST_PROXY reads the client address behind a proxy', async () => {
    for (let i = 0; i < 5; i++) expect((await login('restarted', `wrong-${i}`, '10.40.0.1')).statusCode).toBe(401);

    const store = await PostgresEventStore.connect(product.databaseUrl);
    const outbox = mkdtempSync(join(tmpdir(), 'agency-outbox-'));
    // One free failure per username here: the five counted by the first instance make the next
    // attempt wait 2^4 s from the last, so the refusal below does not hang on how long this
    // instance took to start (with the default five free, the wait was one second).
    const second = await buildApp({
      databaseUrl: product.databaseUrl,
      store,
      jwtSecret: 'test-secret-test-secret-test-secret',
      mailer: createMailer({ outboxDir: outbox, from: 'x@localhost', log: () => {} }),
      trustProxy: ['10.50.0.0/16'],
      loginLimits: { ...DEFAULT_LOGIN_LIMITS, freePerUsername: 1 },
    });
    try {
      const again = await second.app.inject({
        method: 'POST',
        url: '/auth/local',
        payload: { username: 'restarted', password: 'wrong-5' },
        remoteAddress: '10.40.0.9',
      });
      expect(again.statusCode).toBe(429);

      // Behind the trusted proxy the address counted is the client's, from X-Forwarded-For.
      const proxied = await second.app.inject({
        method: 'POST',
        url: '/auth/local',
        payload: { username: 'someone', password: 'wrong' },
        remoteAddress: '10.50.0.2',
        headers: { 'x-forwarded-for': '203.0.113.7' },
      });
      expect(proxied.statusCode).toBe(401);
      expect((await db.query("select 1 from auth.login_failures where key = 'a:203.0.113.7'")).rowCount).toBe(1);
    } finally {
      await second.app.close();
      await store.close();
      rmSync(outbox, { recursive: true, force: true });
    }
    // Without a trusted proxy the header is the client's word, and not taken.
    await inject('POST', '/auth/local', undefined, { username: 'someone', password: 'wrong' }, '10.60.0.1');
    const spoofed = await product.command.app.inject({
      method: 'POST',
      url: '/auth/local',
      payload: { username: 'someone-else', password: 'wrong' },
      remoteAddress: '10.60.0.2',
      headers: { 'x-forwarded-for': '198.51.100.1' },
    });
    expect(spoofed.statusCode).toBe(401);
    expect((await db.query("select 1 from auth.login_failures where key = 'a:198.51.100.1'")).rowCount).toBe(0);
    expect((await db.query("select 1 from auth.login_failures where key = 'a:10.60.0.2'")).rowCount).toBe(1);
  });

  it('an admin lists a tutor’s live sessions and ends one or all; nobody else may', async () => {
    const martha = await activatedTutor('Martha', 'Jones');
    const second = (await login(martha.username, martha.password)).json().token;
    const list = async (token = admin) => {
      const response = await fetch(`${product.url}/api/tutors/${martha.tutorId}/sessions`, {
        headers: { authorization: `Bearer ${token}` },
      });
      return { status: response.status, body: await response.json() };
    };
    const listed = await list();
    expect(listed.status).toBe(200);
    expect(listed.body.sessions).toHaveLength(2);
    expect(listed.body.sessions[0]).toMatchObject({ createdAt: expect.any(String), lastSeenAt: expect.any(String) });
    expect((await list(martha.token)).status).toBe(403);
    expect((await post(`/api/tutors/sessions/end/${martha.tutorId}`, {}, martha.token)).statusCode).toBe(403);

    const one = await post(`/api/tutors/sessions/end/${martha.tutorId}`, { sessionId: sidOf(martha.token) });
    expect(one.statusCode, one.body).toBe(200);
    expect(one.json().ended).toBe(1);
    expect(await statuses(martha.token)).toEqual([401, 401]);
    expect(await statuses(second)).toEqual([200, 200]);
    expect((await list()).body.sessions.map((s: { id: string }) => s.id)).toEqual([sidOf(second)]);

    const all = await post(`/api/tutors/sessions/end/${martha.tutorId}`);
    expect(all.json().ended).toBe(1);
    expect(await statuses(second)).toEqual([401, 401]);
    expect((await list()).body.sessions).toEqual([]);
  });

  it('a login turned off cannot sign in or reset and its sessions end; turned on it signs in; the last admin on stays on', async () => {
    const logins = async (token = admin) => {
      const response = await fetch(`${product.url}/api/users`, { headers: { authorization: `Bearer ${token}` } });
      return { status: response.status, body: await response.json() };
    };
    const turn = (userId: string, active: boolean, token = admin) =>
      post(`/api/users/active/${userId}`, { active }, token);
    const made = await post('/api/users', {
      username: 'otto-auditor',
      password: 'Garnet-Plover-6613',
      role: 'auditor',
      name: 'Otto Auditor',
    });
    expect(made.statusCode, made.body).toBe(200);
    const otto = made.json().user.id as string;
    const ottoToken = (await login('otto-auditor', 'Garnet-Plover-6613')).json().token;
    expect(await statuses(ottoToken)).toEqual([200, 200]);
    expect((await logins()).body.logins).toContainEqual(
      expect.objectContaining({ id: otto, role: 'auditor', active: true, resetByEmail: false, tutorName: null }),
    );
    expect((await logins(ottoToken)).status).toBe(200);
    // An auditor reads the list and changes nothing.
    expect((await turn(otto, false, ottoToken)).statusCode).toBe(403);

    const off = await turn(otto, false);
    expect(off.statusCode, off.body).toBe(200);
    expect(off.json().login).toEqual({ id: otto, active: false });
    expect(await statuses(ottoToken)).toEqual([401, 401]);
    expect(await liveSessionsOf(otto)).toBe(0);
    expect(
      (await db.query('select ended_reason from auth.sessions where id = $1', [sidOf(ottoToken)])).rows[0],
    ).toEqual({ ended_reason: 'login-turned-off' });
    const refused = await login('otto-auditor', 'Garnet-Plover-6613');
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error).toMatchObject({
      code: 'login_turned_off',
      message: expect.stringMatching(/turned off/),
    });
    // A wrong password is told only that: nobody learns the login is off without its password.
    expect((await login('otto-auditor', 'Wrong-Plover-6613')).statusCode).toBe(401);
    expect((await logins()).body.logins).toContainEqual(expect.objectContaining({ id: otto, active: false }));
    expect((await turn(otto, false)).statusCode).toBe(200);

    // A tutor's login turned off gets no reset link, and a link sent before sets nothing.
    const river = await activatedTutor('River', 'Song');
    expect((await logins()).body.logins).toContainEqual(
      expect.objectContaining({ id: river.userId, resetByEmail: true, tutorName: 'River Song' }),
    );
    const early = await resetLink(river.username, river.userId, '10.22.0.1');
    expect((await turn(river.userId, false)).statusCode).toBe(200);
    expect(await statuses(river.token)).toEqual([401, 401]);
    const links = async () =>
      Number(
        (await db.query('select count(*) from auth.reset_tokens where user_id = $1', [river.userId])).rows[0].count,
      );
    const before = await links();
    expect((await post('/auth/local/reset', { username: river.username }, '', '10.22.0.2')).statusCode).toBe(200);
    expect(await links()).toBe(before);
    const completed = await post('/auth/local/password', { resetToken: early, password: 'Heron-Basalt-3381' }, '');
    expect(completed.statusCode).toBe(403);
    expect(completed.json().error.code).toBe('login_turned_off');
    expect(await liveSessionsOf(river.userId)).toBe(0);

    const on = await turn(otto, true);
    expect(on.statusCode, on.body).toBe(200);
    expect((await login('otto-auditor', 'Garnet-Plover-6613')).statusCode).toBe(200);

    // Every other admin off: the one left on cannot be turned off, not even by itself.
    const self = (await db.query('select id from read.users where lower(username) = lower($1)', [TEST_ADMIN.username]))
      .rows[0].id as string;
    const others = (
      await db.query("select id from read.users where role = 'admin' and active and id <> $1", [self])
    ).rows.map((row) => row.id as string);
    try {
      for (const other of others) expect((await turn(other, false)).statusCode).toBe(200);
      const last = await turn(self, false);
      expect(last.statusCode, last.body).toBe(409);
      expect(last.json().error.message).toMatch(/only admin login that is on/);
      expect(await statuses(admin)).toEqual([200, 200]);
    } finally {
      for (const other of others) await turn(other, true);
    }
  });
});
