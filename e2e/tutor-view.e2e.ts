import { randomUUID } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminApi } from './support/api';
import { launchChromium, screenshot } from './support/chromium';
import { logIn } from './support/session';

describe('a tutor in the clients area', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(() => browser?.close());

  it('sees no New Client button and only their own menu', async () => {
    // A tutor login, made through the same route as the command-line tool's.
    const username = `tutor${randomUUID().slice(0, 6)}`;
    const admin = await adminApi();
    await admin.post('/api/users', {
      username,
      password: 'tutor-password',
      role: 'tutor',
      tutorId: randomUUID(),
      name: 'Tess Tutor',
    });
    const page = await logIn(browser, username, 'tutor-password');
    await page.getByRole('heading', { name: 'Clients' }).waitFor();
    expect(await page.getByRole('button', { name: 'New Client' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Tutors' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Lessons' }).count()).toBe(1);
    await screenshot(page, 'clients-as-tutor');
  });
});
