import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminApi, contactFor } from './support/api';
import { downloaded, expectAccessible, launchChromium } from './support/chromium';
import { logInAsAdmin } from './support/session';

/**
 * The reminder settings, the aged-debt report and the accountant's export in the browser: an admin
 * sets a schedule (a refused one says why), finds a family's unpaid consultation in the report's
 * Current column and in its CSV, and downloads an export that shows its mark for next time.
 */
describe('reminders, aged debt and the accountant’s export in the browser', () => {
  let browser: Browser;
  let page: Page;
  const surname = `Owing${Date.now() % 100000}`;
  const family = `Hal ${surname}`;

  beforeAll(async () => {
    const api = await adminApi();
    const { client } = await api.post('/api/clients/contact', contactFor('Hal', surname));
    const { child } = await api.post(`/api/clients/child/${client.id}`, {
      firstName: 'Ivy',
      lastName: surname,
      dob: '2014-02-03',
    });
    await api.post('/api/consultations', { client: client.id, child: child.id, date: '2026-03-06', assessment: false });
    browser = await launchChromium();
    page = await logInAsAdmin(browser);
  });
  afterAll(async () => {
    // The shared product is left with reminders off, as it started.
    const api = await adminApi();
    await api.post('/api/agency/reminders', { days: '', lateFee: '0' });
    await browser?.close();
  });

  it('sets the reminder schedule in Settings, refusing days out of order', async () => {
    await page.goto('/settings/reminders');
    const days = page.getByLabel('Days after the due date (blank: no reminders)');
    await days.fill('14, 7');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('List the days in increasing order').first().waitFor();
    await days.fill('7, 14, 30');
    await page.getByLabel('Late fee (£, 0 for none)').fill('5.00');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved').waitFor();
    await page.reload();
    await expect
      .poll(() => page.getByLabel('Days after the due date (blank: no reminders)').inputValue())
      .toBe('7, 14, 30');
    await expectAccessible(page);
  });

  it('shows what the family owes, not yet due, and gives it as CSV', async () => {
    await page.goto('/reports/aged-debt');
    const row = page.getByRole('row').filter({ hasText: family });
    await expect.poll(() => row.count()).toBe(1);
    // Issued today and due after the agency's terms: all of it is in Current, so the Total says the same.
    const cell = (index: number) => row.getByRole('cell').nth(index).textContent();
    await expect.poll(() => cell(2)).not.toBe('0.00');
    expect(await cell(7)).toBe(await cell(2));
    expect(await cell(3)).toBe('0.00');
    await page.getByRole('button', { name: 'Print' }).waitFor();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download CSV' }).click(),
    ]);
    const csv = (await downloaded(download)).toString('utf8');
    expect(csv).toContain(`"${family}","`);
    await expectAccessible(page);
  });

  it('downloads the accountant’s export and shows its mark', async () => {
    await page.goto('/reports/accounting-export');
    const today = new Date();
    const yyyy = today.getUTCFullYear();
    await page.getByLabel('From', { exact: true }).fill(`${yyyy}-01-01`);
    await page.getByLabel('To', { exact: true }).fill(`${yyyy}-12-31`);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download CSV' }).click(),
    ]);
    const csv = (await downloaded(download)).toString('utf8');
    expect(csv.split('\r\n')[0]).toContain('"ContactName","EmailAddress","InvoiceNumber"');
    expect(csv).toContain(`"${family}"`);
    await page.getByRole('status').filter({ hasText: "This export's mark:" }).waitFor();
    await expectAccessible(page);
  });
});
