import { randomUUID } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchChromium, screenshot } from './support/chromium';
import { logIn } from './support/session';

describe('a tutor in the clients area', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(() => browser?.close());

  it('sees no New Client button and only their own menu', async () => {
    // A tutor account, made with the command-line tool's route: log in as admin over HTTP first.
    const base = inject('baseUrl');
    const login = await fetch(`${base}/auth/local`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(inject('admin')),
    });
    expect(login.status).toBe(200);
    const username = `tutor${randomUUID().slice(0, 6)}`;
    const created = await fetch(`${base}/api/users`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${(await login.json()).token}` },
      body: JSON.stringify({
        username,
        password: 'tutor-password',
        role: 'tutor',
        tutorId: randomUUID(),
        name: 'Tess Tutor',
      }),
    });
    expect(created.status).toBe(200);
    const page = await logIn(browser, username, 'tutor-password');
    await page.getByRole('heading', { name: 'Clients' }).waitFor();
    expect(await page.getByRole('button', { name: 'New Client' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Tutors' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Lessons' }).count()).toBe(1);
    await screenshot(page, 'clients-as-tutor');
  });
});
