import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminApi, contactFor } from './support/api';
import { downloaded, expectAccessible, launchChromium, screenshot } from './support/chromium';
import { logInAsAdmin } from './support/session';

/**
 * In the browser: an admin downloads a family's subject-access export from the client
 * page, then erases the family with a reason, through a dialog that says what is kept and for
 * how long; the page then says "Erased", and so do the family's contacts once reloaded.
 */
describe('a family’s personal data in the browser', () => {
  let browser: Browser;
  let page: Page;
  let clientId = '';
  let tutorId = '';
  const surname = `Erasmus${Date.now() % 100000}`;

  beforeAll(async () => {
    const api = await adminApi();
    const { client } = await api.post('/api/clients/contact', contactFor('Iris', surname));
    clientId = client.id;
    await api.post(`/api/clients/child/${client.id}`, { firstName: 'Milo', lastName: surname, dob: '2014-05-06' });
    const { tutor } = await api.post('/api/tutors/contact', {
      contact: contactFor('Otto', surname),
      tutor: { username: `otto${surname}`.toLowerCase(), invoicePrefix: 'OT', startDate: '2024-09-01' },
    });
    tutorId = tutor.id;
    const today = new Date().toISOString().slice(0, 10);
    await api.post(`/api/tutors/active/${tutorId}`, { id: tutorId, active: false, endDate: today });
    browser = await launchChromium();
    page = await logInAsAdmin(browser);
  });
  afterAll(() => browser?.close());

  it('exports the family, then erases it', async () => {
    await page.goto(`/client/${clientId}`);
    await page.getByRole('heading', { name: 'Personal Data' }).waitFor();
    await expect.poll(() => page.getByText(`Iris ${surname}`).count()).toBeGreaterThan(0);

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Export', exact: true }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`family-${clientId}-export.zip`);
    const zip = await downloaded(download);
    expect(zip.subarray(0, 2).toString('latin1')).toBe('PK');
    expect(zip.toString('latin1')).toContain('export.json');

    // A reason is required before the dialog opens.
    await page.getByRole('button', { name: 'Erase Family' }).click();
    await expect.poll(() => page.getByText('A reason is required').count()).toBe(1);
    await page.getByLabel('Reason for erasure').fill('Asked by the family');
    await page.getByRole('button', { name: 'Erase Family' }).click();
    const dialog = page.getByRole('dialog', { name: 'Erase Family?' });
    await dialog.waitFor();
    const words = await dialog.innerText();
    expect(words).toContain('cannot be undone');
    expect(words).toContain('6 years from each invoice');
    await expectAccessible(page);
    await screenshot(page, 'erase-family-dialog');
    await dialog.getByRole('button', { name: 'Erase', exact: true }).click();

    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Erased' }).count()).toBe(1);
    await expectAccessible(page);
    await expect
      .poll(async () => {
        await page.reload();
        await page.getByRole('heading', { name: 'Contacts' }).waitFor();
        return page.getByText(`Iris ${surname}`).count();
      })
      .toBe(0);
    expect(await page.getByText('Erased').count()).toBeGreaterThan(0);
    await screenshot(page, 'client-erased');
  });

  it('erases a tutor who has left', async () => {
    await page.goto(`/tutor/${tutorId}`);
    await page.getByRole('heading', { name: 'Personal Data' }).waitFor();
    await page.getByLabel('Reason for erasure').fill('Left the agency; asked for erasure');
    await page.getByRole('button', { name: 'Erase Tutor' }).click();
    const dialog = page.getByRole('dialog', { name: 'Erase Tutor?' });
    await dialog.waitFor();
    expect(await dialog.innerText()).toContain('username only as a hash');
    await expectAccessible(page);
    await dialog.getByRole('button', { name: 'Erase', exact: true }).click();
    await dialog.waitFor({ state: 'hidden' });
    await expect
      .poll(async () => {
        await page.reload();
        await page.getByRole('heading', { name: 'Personal Data' }).waitFor();
        return page.getByText(`Otto ${surname}`).count();
      })
      .toBe(0);
    expect(await page.getByText('Erased').count()).toBeGreaterThan(0);
  });
});
