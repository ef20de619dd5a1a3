import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminApi, contactFor } from './support/api';
import { expectAccessible, launchChromium, screenshot } from './support/chromium';
import { logInAsAdmin } from './support/session';

describe('consultations in the browser', () => {
  let browser: Browser;
  let page: Page;
  const surname = `Fenwick${Date.now() % 100000}`;

  beforeAll(async () => {
    // A family with two children, made through the real routes.
    const api = await adminApi();
    const { client } = await api.post('/api/clients/contact', contactFor('Olive', surname));
    await api.post(`/api/clients/child/${client.id}`, { firstName: 'Rory', lastName: surname, dob: '2013-04-02' });
    await api.post(`/api/clients/child/${client.id}`, { firstName: 'Tess', lastName: surname, dob: '2015-09-12' });
    browser = await launchChromium();
    page = await logInAsAdmin(browser);
  });
  afterAll(() => browser?.close());

  it('shows the required messages and sends nothing while the form is empty', async () => {
    await page.getByRole('link', { name: 'Consultations' }).first().click();
    await page.getByRole('heading', { name: 'Consultations' }).waitFor();
    await page.getByRole('button', { name: 'New Consultation' }).click();
    await page.getByRole('heading', { name: 'New Consultation' }).waitFor();
    await expect.poll(() => page.getByLabel('Amount').inputValue()).toBe('175');
    expect(await page.getByLabel('Subjects assessed').count()).toBe(0);
    await page.getByLabel('Date').fill('');
    await page.getByRole('button', { name: 'Save' }).click();
    for (const message of ['Date is required', 'Client is required', 'Child is required']) {
      await expect.poll(() => page.getByText(message).count()).toBeGreaterThan(0);
    }
    expect(page.url()).toContain('/consultations/new');
    await expectAccessible(page);
    await screenshot(page, 'consultation-new-validation');
  });

  it('records a consultation with an assessment and finds it in the list with its invoice reference', async () => {
    await page.getByLabel('Date').fill('2026-03-05');
    await page.getByRole('combobox', { name: 'Client' }).fill(`olive ${surname.slice(0, 5)}`);
    await page.getByRole('option', { name: `Olive ${surname}` }).click();
    const child = page.getByLabel('Child');
    await expect.poll(() => child.locator('option').count()).toBe(2);
    expect(await child.getAttribute('size')).toBe('3');
    await child.selectOption({ label: `Tess ${surname}` });
    await page.getByLabel('Assessment?').check();
    await page.getByRole('group', { name: 'Subjects assessed' }).waitFor();
    await page.getByLabel('Maths', { exact: true }).check();
    await page.getByLabel('English', { exact: true }).check();
    await expectAccessible(page);
    await screenshot(page, 'consultation-new-assessment');
    await page.getByRole('button', { name: 'Save' }).click();

    await page.waitForURL(/\/consultations$/);
    const row = page.getByRole('row').filter({ hasText: `Tess ${surname}` });
    await expect.poll(() => row.count()).toBe(1);
    const text = await row.innerText();
    expect(text).toContain('05 Mar 2026');
    expect(text).toContain(`Olive ${surname}`);
    expect(text).toContain('175.00');
    expect(text).toContain('(assessment)');
    const invoice = row.getByRole('link', { name: /^OTA\d{5}$/ });
    expect(await invoice.getAttribute('target')).toBe('_blank');
    expect(await invoice.getAttribute('href')).toMatch(/^\/api\/family-invoices\/doc\//);
    await expectAccessible(page);
    await screenshot(page, 'consultations-list');
  });

  it('finds the family’s invoice in the family invoices ledger, then its invoices and balance on its page', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Family Invoices' }).click();
    await page.getByRole('heading', { name: 'Family Invoices' }).waitFor();
    await page.getByRole('combobox', { name: 'Family' }).fill(`olive ${surname.slice(0, 5)}`);
    await page.getByRole('option', { name: `Olive ${surname}` }).click();
    await page.waitForURL(/\/family-invoices\?client=/);
    // Only this family's entries: its one consultation invoice, unpaid, £175.00 owed.
    const rows = page.getByRole('table').locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(1);
    const row = rows.first();
    expect(await row.innerText()).toContain(`Olive ${surname}`);
    expect(await row.innerText()).toContain('Unpaid');
    const invoice = row.getByRole('link', { name: /^OTA\d{5}$/ });
    const reference = await invoice.innerText();
    expect(await invoice.getAttribute('href')).toMatch(/^\/api\/family-invoices\/doc\//);
    expect(await page.getByTestId('total-owed').innerText()).toBe('175.00');
    expect(await page.getByRole('link', { name: 'Download CSV' }).getAttribute('href')).toMatch(
      /^\/api\/family-invoices\?client=[^&]+&format=csv$/,
    );
    await page.getByLabel('State').selectOption('paid');
    await expect
      .poll(() => page.getByText('No invoices, credit notes or payments match these filters').count())
      .toBe(1);
    await page.getByLabel('State').selectOption('');
    await expect.poll(() => rows.count()).toBe(1);
    await expectAccessible(page);
    await screenshot(page, 'family-invoices-ledger');

    await row.getByRole('link', { name: `Olive ${surname}` }).click();
    await page.getByRole('heading', { name: 'Client', exact: true }).waitFor();
    const invoices = page.getByRole('region', { name: 'Invoices' });
    await expect.poll(() => invoices.getByRole('link', { name: reference }).count()).toBe(1);
    expect(await page.getByTestId('family-balance').innerText()).toBe('Owed: £175.00');
    expect(await invoices.getByRole('row').filter({ hasText: reference }).innerText()).toMatch(
      /175\.00\s+0\.00\s+175\.00\s+Unpaid/,
    );
    await page.getByRole('region', { name: 'Recent Lessons' }).getByText('No lessons delivered yet.').waitFor();
    await expectAccessible(page);
    await screenshot(page, 'client-detail-invoices');
  });

  it('lets an admin edit the agency’s details on the settings screen', async () => {
    await page.getByRole('link', { name: 'Settings' }).first().click();
    await page.getByRole('heading', { name: 'Settings' }).waitFor();
    await expect.poll(() => page.getByLabel('Sort Code').inputValue()).toBe('40-12-76');
    await page.getByLabel('Sort Code').fill('12');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByText('Use a sort code like 12-34-56').count()).toBeGreaterThan(0);
    await expectAccessible(page);
    await screenshot(page, 'settings');
  });
});
