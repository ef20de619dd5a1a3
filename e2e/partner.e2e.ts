import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminApi, contactFor } from './support/api';
import { expectAccessible, launchChromium, screenshot } from './support/chromium';
import { logIn } from './support/session';

describe('a partner in the browser (spec §6)', () => {
  let browser: Browser;
  const stamp = Date.now() % 100000;
  const username = `partner${stamp}`;
  let tutorName = '';

  beforeAll(async () => {
    browser = await launchChromium();
    // A partner is a tutor whose login carries the partner role.
    const admin = await adminApi();
    const last = `Penn${stamp}`;
    const { tutor } = await admin.post('/api/tutors/contact', {
      contact: contactFor('Paula', last),
      tutor: { username: `ppenn${stamp}`, invoicePrefix: `PP${stamp}`, startDate: '2024-01-01' },
    });
    tutorName = `Paula ${last}`;
    await admin.post('/api/clients/contact', contactFor('Flora', `Family${stamp}`));
    await admin.post('/api/users', {
      username,
      password: 'partner-password',
      role: 'partner',
      tutorId: tutor.id,
      name: tutorName,
    });
  });
  afterAll(() => browser?.close());

  it('sees clients, tutors, lessons, invoices and reports; may open clients; cannot create them', async () => {
    const page = await logIn(browser, username, 'partner-password');
    await page.getByRole('heading', { name: 'Clients' }).waitFor();
    const menu = page.getByRole('navigation', { name: 'Main' });
    const links = (path: string) => menu.locator(`a[href="${path}"]`).count();
    for (const path of ['/clients', '/tutors', '/lessons', '/invoices', '/reports/invoices']) {
      expect(await links(path), path).toBe(1);
    }
    // The workshops report is read by admins and auditors: the menu offers a partner no screen it refuses.
    for (const path of ['/consultations', '/workshops', '/resources', '/reports/workshops']) {
      expect(await links(path), path).toBe(0);
    }
    expect(await page.getByRole('button', { name: 'New Client' }).count()).toBe(0);
    // The tutor selector with All tutors, and the Show Inactive toggle.
    const selector = page.getByLabel('Tutor', { exact: true });
    await expect.poll(() => selector.locator('option').allTextContents()).toContain('All tutors');
    await expect.poll(() => selector.locator('option').allTextContents()).toContain(tutorName);
    expect(await page.getByLabel('Show Inactive?').count()).toBe(1);
    await expectAccessible(page);
    await screenshot(page, 'clients-as-partner');

    // A partner opens a family's details, but edits nothing.
    await page.getByText(`Flora Family${stamp}`).click();
    await page.getByRole('heading', { name: 'Client', exact: true }).waitFor();
    expect(await page.getByRole('button', { name: 'Add Contact' }).count()).toBe(0);
    expect(await page.getByLabel('Active').count()).toBe(0);

    await page.goto('/tutors');
    await page.getByRole('heading', { name: 'Tutors' }).waitFor();
    expect(await page.getByRole('button', { name: 'New Tutor' }).count()).toBe(0);
    await expect.poll(() => page.getByText(tutorName).count()).toBeGreaterThan(0);
  });
});
