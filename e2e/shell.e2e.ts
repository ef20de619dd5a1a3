import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible, launchChromium, screenshot } from './support/chromium';
import { logInAsAdmin } from './support/session';

describe('the rest of the shell', () => {
  let browser: Browser;
  let admin: Page;

  beforeAll(async () => {
    browser = await launchChromium();
    admin = await logInAsAdmin(browser);
  });
  afterAll(() => browser?.close());

  it('has a favicon', async () => {
    expect(await admin.locator('link[rel="icon"]').getAttribute('href')).toBe('/favicon.svg');
    const icon = await admin.request.get('/favicon.svg');
    expect(icon.status()).toBe(200);
    expect(icon.headers()['content-type']).toMatch(/^image\/svg\+xml/);
    expect(await icon.text()).toContain('<svg');
  });

  it('Resources: the agency, the version and the help text, for admins', async () => {
    await admin.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Resources' }).click();
    await admin.getByRole('heading', { name: 'Resources' }).waitFor();
    await admin.getByRole('heading', { name: 'The agency' }).waitFor();
    await admin.getByRole('term').filter({ hasText: 'Email' }).waitFor();
    expect(await admin.getByTestId('product-version').textContent()).toMatch(/^\d+\.\d+\.\d+$/);
    await admin.getByRole('link', { name: 'Generating, confirming and withdrawing an invoice' }).click();
    await admin.waitForURL('**/resources#help-invoices');
    await admin.getByRole('heading', { name: 'Generating, confirming and withdrawing an invoice' }).waitFor();
    expect(await admin.getByRole('link', { name: /API reference/ }).getAttribute('href')).toBe('/api/docs');
    await expectAccessible(admin);
    await screenshot(admin, 'resources');
  });

  it('an unknown path says Page not found, with a way back', async () => {
    await admin.goto('/clients');
    await admin.getByRole('heading', { name: 'Clients' }).waitFor();
    await admin.goto('/no/such/page');
    await admin.getByRole('heading', { name: 'Page not found' }).waitFor();
    await admin.getByText('/no/such/page').waitFor();
    await expectAccessible(admin);
    await screenshot(admin, 'page-not-found');
    await admin.getByRole('button', { name: 'Go back' }).click();
    await admin.waitForURL('**/clients');
    await admin.goto('/nowhere');
    await admin.getByRole('link', { name: 'Go to the dashboard' }).click();
    await admin.waitForURL('**/dashboard');
    await admin.getByRole('heading', { name: 'Dashboard' }).waitFor();
  });

  it('the header dropdown holds Dashboard and Logout', async () => {
    await admin.goto('/clients');
    const toggle = admin.getByRole('button', { name: /\(account\)$/ });
    await toggle.click();
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    const dropdown = admin.locator('#user-menu');
    await dropdown.getByRole('link', { name: 'Dashboard' }).waitFor();
    await dropdown.getByRole('link', { name: 'Logout' }).waitFor();
    await expectAccessible(admin);
    await admin.keyboard.press('Escape');
    await expect.poll(() => dropdown.count()).toBe(0);

    await toggle.click();
    await dropdown.getByRole('link', { name: 'Dashboard' }).click();
    await admin.waitForURL('**/dashboard');
    await expect.poll(() => dropdown.count()).toBe(0);

    await toggle.click();
    await dropdown.getByRole('link', { name: 'Logout' }).click();
    await admin.waitForURL('**/login');
  });
});
