import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { type Delivered, startLoopbackSmtp } from '@agency/scripts/testing/loopback-smtp';
import { startTestProduct, TEST_ADMIN, type TestProduct } from '@agency/scripts/testing/test-product';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const PUBLIC_URL = 'https://agency.example.test';
const TOO_COMMON = 'This password is too common. Choose another.';

describe('common passwords are refused wherever a password is chosen (real PostgreSQL, SMTP on loopback)', () => {
  let product: TestProduct;
  let smtp: Awaited<ReturnType<typeof startLoopbackSmtp>>;
  let admin: string;
  let inbox: Delivered[];

  beforeAll(async () => {
    smtp = await startLoopbackSmtp({ decoded: true });
    inbox = smtp.inbox;
    product = await startTestProduct({ smtpUrl: smtp.url, publicUrl: PUBLIC_URL });
    admin = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
  });
  afterAll(async () => {
    await product?.dispose();
    await smtp?.close();
  });

  const post = (url: string, payload: object, token?: string) =>
    product.command.app.inject({
      method: 'POST',
      url,
      payload,
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
  const linkAfter = async (before: number, path: string) => {
    await expect.poll(() => inbox.length).toBeGreaterThan(before);
    const match = new RegExp(`${PUBLIC_URL}/${path}/([A-Za-z0-9_-]+)`).exec(
      inbox
        .slice(before)
        .map((message) => message.raw)
        .join('\n'),
    );
    expect(match, `a ${path} link`).not.toBeNull();
    return match![1]!;
  };
  /** Whom this password signs in (login throws on any answer but 200). */
  const signedInAs = async (username: string, password: string) =>
    (await product.api(await product.login(username, password)).get('/auth/local/me')).user.username;
  const refusedAsCommon = (response: Awaited<ReturnType<typeof post>>) => {
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json().error).toMatchObject({
      code: 'invalid_input',
      message: TOO_COMMON,
      fields: { password: TOO_COMMON },
    });
  };

  it('activation and reset refuse password1 and qwerty123 with the message on the password field, keep the link, and take a strong one', async () => {
    const created = await post(
      '/api/tutors/contact',
      {
        commandId: randomUUID(),
        contact: {
          firstName: 'Cora',
          lastName: 'Mmon',
          address: ['1 Road'],
          postcode: 'OX1 1AA',
          email: 'cora@example.com',
          phone: [{ type: 'Mobile', number: '07700 900003' }],
        },
        tutor: { username: 'cmmon', invoicePrefix: 'CM' },
      },
      admin,
    );
    expect(created.statusCode, created.body).toBe(200);
    const tutorId = created.json().tutor.id as string;

    let before = inbox.length;
    expect((await post(`/api/tutors/activate/${tutorId}`, { commandId: randomUUID() }, admin)).statusCode).toBe(200);
    const activationCode = await linkAfter(before, 'activate');
    const activate = (password: string) =>
      post('/auth/local/activate', { activationCode, username: 'cmmon', password });
    refusedAsCommon(await activate('password1'));
    refusedAsCommon(await activate('qwerty123'));
    expect((await activate('cora-chose-a-long-one')).statusCode).toBe(200);
    expect(await signedInAs('cmmon', 'cora-chose-a-long-one')).toBe('cmmon');

    before = inbox.length;
    expect((await post('/auth/local/reset', { username: 'cmmon' })).statusCode).toBe(200);
    const resetToken = await linkAfter(before, 'reset');
    const setPassword = (password: string) => post('/auth/local/password', { resetToken, password });
    refusedAsCommon(await setPassword('qwerty123'));
    refusedAsCommon(await setPassword('password1'));
    expect((await setPassword('cora-new-long-one-2')).statusCode).toBe(200);
    expect(await signedInAs('cmmon', 'cora-new-long-one-2')).toBe('cmmon');
    await expect(product.login('cmmon', 'cora-chose-a-long-one')).rejects.toThrow(/: 401 /);
  });

  it('an admin cannot create a login with a common password', async () => {
    const create = (password: string) =>
      post(
        '/api/users',
        { commandId: randomUUID(), username: 'office2', password, role: 'admin', name: 'Office' },
        admin,
      );
    refusedAsCommon(await create('password1'));
    expect((await create('office-two-password')).statusCode).toBe(200);
  });

  it('npm run user refuses a common password before it touches anything', () => {
    const run = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        'scripts/src/user.ts',
        'add',
        '--role',
        'admin',
        '--username',
        'x',
        '--password',
        'qwerty123',
      ],
      { encoding: 'utf8', env: { ...process.env, DATA_DIR: '/nonexistent/agency-data' } },
    );
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(TOO_COMMON);
  });
});
