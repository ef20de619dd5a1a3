import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminApi, contactFor } from './support/api';
import { expectAccessible, launchChromium, screenshot } from './support/chromium';
import { logIn, logInAsAdmin } from './support/session';

/**
 * On the consultations list: an admin records part payments against a consultation's
 * family invoice (more than is owed is refused with the server's message under the amount), then
 * cancels the consultation after a confirmation, and the row shows the credit note.
 */
describe('paying and cancelling a consultation in the browser', () => {
  let browser: Browser;
  let page: Page;
  const surname = `Quayle${Date.now() % 100000}`;
  const child = `Nell ${surname}`;

  beforeAll(async () => {
    const api = await adminApi();
    const { client } = await api.post('/api/clients/contact', contactFor('Hester', surname));
    const { child: added } = await api.post(`/api/clients/child/${client.id}`, {
      firstName: 'Nell',
      lastName: surname,
      dob: '2014-02-03',
    });
    await api.post('/api/consultations', { client: client.id, child: added.id, date: '2026-03-06', assessment: false });
    browser = await launchChromium();
    page = await logInAsAdmin(browser);
  });
  afterAll(() => browser?.close());

  const row = () => page.getByRole('row').filter({ hasText: child });

  it('records a part payment, refuses paying more than is owed, then the rest', async () => {
    await page.goto('/consultations');
    await page.getByRole('heading', { name: 'Consultations' }).waitFor();
    await expect.poll(() => row().count()).toBe(1);
    await row()
      .getByRole('button', { name: /^Record Payment for / })
      .click();
    const form = page.getByRole('form', { name: /^Payment for / });
    await form.waitFor();
    await expect.poll(() => form.getByLabel('Amount').inputValue()).toBe('175.00');
    await form.getByLabel('Amount').fill('100');
    await form.getByRole('button', { name: 'Save' }).click();
    await form.waitFor({ state: 'detached' });
    await expect.poll(() => row().getByRole('img', { name: 'Paid £100.00' }).count()).toBe(1);
    // Part-paid: beside the tick, what is still owed.
    expect(await row().innerText()).toContain('£75.00 owed');

    await row()
      .getByRole('button', { name: /^Record Payment for / })
      .click();
    await expect.poll(() => form.getByLabel('Amount').inputValue()).toBe('75.00');
    await form.getByLabel('Amount').fill('80');
    await form.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => form.getByText('At most £75.00').count()).toBe(1);
    await expectAccessible(page);
    await screenshot(page, 'consultation-payment-refused');
    await form.getByLabel('Amount').fill('75');
    await form.getByRole('button', { name: 'Save' }).click();
    await form.waitFor({ state: 'detached' });
    await expect.poll(() => row().getByRole('img', { name: 'Paid £175.00' }).count()).toBe(1);
    expect(await row().innerText()).not.toContain('owed');
    expect(
      await row()
        .getByRole('button', { name: /^Record Payment/ })
        .count(),
    ).toBe(0);
  });

  it('cancels the consultation once confirmed, and shows its credit note', async () => {
    await row()
      .getByRole('button', { name: /^Cancel consultation of 06 Mar 2026/ })
      .click();
    const question = page.getByRole('group', { name: /^Cancel the consultation of 06 Mar 2026/ });
    await question.waitFor();
    expect(await question.innerText()).toMatch(/Invoice OTA\d{5} is then credited by a credit note/);
    await expectAccessible(page);
    await screenshot(page, 'consultation-cancel-question');
    // Keeping it changes nothing.
    await question.getByRole('button', { name: 'Keep it' }).click();
    await question.waitFor({ state: 'detached' });
    expect(await row().innerText()).not.toContain('(cancelled)');

    await row()
      .getByRole('button', { name: /^Cancel consultation of 06 Mar 2026/ })
      .click();
    await question.getByRole('button', { name: 'Yes, cancel it' }).click();
    await expect.poll(() => row().innerText()).toContain('(cancelled)');
    // The invoice no longer bills it: the row names the credit note that cancels it.
    const creditNote = row().getByRole('link', { name: /^OTA\d{5}$/ });
    await expect.poll(() => creditNote.count()).toBe(1);
    expect(await creditNote.getAttribute('href')).toMatch(/^\/api\/family-invoices\/doc\//);
    expect(await row().innerText()).toContain('credited by');
    expect(
      await row()
        .getByRole('button', { name: /^Cancel consultation of 06 Mar 2026/ })
        .count(),
    ).toBe(0);
    await expectAccessible(page);
    await screenshot(page, 'consultation-cancelled');
  });

  it('shows an auditor the list without the admin’s actions', async () => {
    const username = `auditor${surname}`.toLowerCase();
    await (await adminApi()).post('/api/users', {
      username,
      password: 'auditor-password',
      role: 'auditor',
      name: 'Ada Auditor',
    });
    const auditor = await logIn(browser, username, 'auditor-password');
    await auditor.goto('/consultations');
    await auditor.getByRole('heading', { name: 'Consultations' }).waitFor();
    const line = auditor.getByRole('row').filter({ hasText: child });
    await expect.poll(() => line.count()).toBe(1);
    expect(await line.getByRole('button').count()).toBe(0);
    expect(await auditor.getByRole('button', { name: 'New Consultation' }).count()).toBe(0);
    await expectAccessible(auditor);
  });
});
