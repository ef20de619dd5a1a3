import { startTestProduct, TEST_ADMIN, type TestProduct } from '@agency/scripts/testing/test-product';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

describe('auth API', () => {
  let product: TestProduct;
  beforeAll(async () => {
    // A time zone unlike the default, to see the configured one reach the screens.
    product = await startTestProduct({ timeZone: 'Pacific/Auckland' });
  });
  afterAll(() => product.dispose());

  const login = (username: string, password: string) =>
    product.command.app.inject({ method: 'POST', url: '/auth/local', payload: { username, password } });

  it('logs in: token in an httpOnly SameSite=Lax cookie and in the answer, usable as cookie or Bearer', async () => {
    const response = await login(TEST_ADMIN.username, TEST_ADMIN.password);
    expect(response.statusCode).toBe(200);
    const { token, user } = response.json();
    expect(user).toMatchObject({ username: 'admin', role: 'admin' });
    const cookie = response.cookies.find((c) => c.name === 'token');
    expect(cookie).toMatchObject({ value: token, httpOnly: true, sameSite: 'Lax', path: '/' });
    const viaCookie = await product.command.app.inject({ method: 'GET', url: '/auth/local/me', cookies: { token } });
    expect(viaCookie.json().user).toMatchObject({ username: 'admin', role: 'admin', name: 'Administrator' });
    expect(viaCookie.json().agency).toEqual({ timeZone: 'Pacific/Auckland' });
    const viaBearer = await fetch(`${product.url}/api/clients`, { headers: { authorization: `Bearer ${token}` } });
    expect(viaBearer.status).toBe(200);
    const viaCookieProxy = await fetch(`${product.url}/api/clients`, { headers: { cookie: `token=${token}` } });
    expect(viaCookieProxy.status).toBe(200);
  });

  it('refuses wrong credentials with 401 and a missing field with 400', async () => {
    expect((await login('admin', 'nope')).statusCode).toBe(401);
    expect((await login('nobody', 'nope')).json().error.code).toBe('wrong_credentials');
    const missing = await product.command.app.inject({
      method: 'POST',
      url: '/auth/local',
      payload: { username: 'admin' },
    });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error.fields.password).toBe('Password is required');
  });

  it('rate-limits repeated failures for one username with 429, even with the right password', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await login('victim', 'wrong')).statusCode);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    const other = await login(TEST_ADMIN.username, TEST_ADMIN.password);
    expect(other.statusCode).toBe(200);
  });

  it('keepalive renews the cookie; logout drops it', async () => {
    const { token } = (await login(TEST_ADMIN.username, TEST_ADMIN.password)).json();
    const keepalive = await product.command.app.inject({
      method: 'POST',
      url: '/auth/local/keepalive',
      payload: {},
      cookies: { token },
    });
    expect(keepalive.statusCode).toBe(200);
    expect(keepalive.cookies.find((c) => c.name === 'token')?.value).toBeTruthy();
    const logout = await product.command.app.inject({
      method: 'POST',
      url: '/auth/local/logout',
      payload: {},
      cookies: { token },
    });
    const dropped = logout.cookies.find((c) => c.name === 'token');
    expect(dropped?.value).toBe('');
    expect(dropped?.expires?.getTime()).toBeLessThan(Date.now());
    expect(
      (await product.command.app.inject({ method: 'POST', url: '/auth/local/keepalive', payload: {} })).statusCode,
    ).toBe(401);
  });

  it('never stores a password, hash or token in an event or a read model', async () => {
    const { token } = (await login(TEST_ADMIN.username, TEST_ADMIN.password)).json();
    const db = new pg.Client({ connectionString: product.databaseUrl });
    await db.connect();
    try {
      const events = await db.query('select data::text || metadata::text as text from es.events');
      const reads = await db.query(
        `select string_agg(t::text, ' ') as text from (select row_to_json(u) as t from read.users u) x`,
      );
      const everything = [...events.rows.map((r) => r.text), reads.rows[0].text].join('\n');
      expect(everything).not.toContain(TEST_ADMIN.password);
      expect(everything).not.toContain('$argon2');
      expect(everything).not.toContain(token);
      const hash = await db.query('select password_hash from auth.accounts');
      expect(hash.rows[0].password_hash).toMatch(/^\$argon2id\$/);
    } finally {
      await db.end();
    }
  });
});
