import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { expectAccessible, launchChromium, screenshot } from './support/chromium';
import { linkFromOutbox } from './support/outbox';
import { logInAsAdmin } from './support/session';

async function openAnonymous(browser: Browser): Promise<Page> {
  const context = await browser.newContext({ baseURL: inject('baseUrl'), viewport: { width: 1280, height: 900 } });
  return context.newPage();
}

describe('tutors, activation and password reset in the browser', () => {
  let browser: Browser;
  let admin: Page;
  const stamp = Date.now() % 100000;
  const lastName = `Quayle${stamp}`;
  const email = `nora.${stamp}@example.com`;
  const username = `nquayle${stamp}`;
  const seenMail = new Set<string>();
  let tutorUrl = '';

  beforeAll(async () => {
    browser = await launchChromium();
    admin = await logInAsAdmin(browser);
  });
  afterAll(() => browser?.close());

  it('admin creates a tutor: leaving Last Name fills the suggested username and invoice prefix', async () => {
    await admin.getByRole('link', { name: 'Tutors' }).click();
    await admin.getByRole('heading', { name: 'Tutors' }).waitFor();
    await expectAccessible(admin);
    await screenshot(admin, 'tutors-list');

    await admin.getByRole('button', { name: 'New Tutor' }).click();
    await admin.getByRole('heading', { name: 'New Tutor' }).waitFor();
    await admin.getByRole('button', { name: 'Save' }).click();
    for (const message of [
      'First name is required',
      'Last name is required',
      'Postcode is required',
      'Email is required',
      'Username is required',
      'Invoice Prefix is required',
    ]) {
      await expect.poll(() => admin.getByText(message).count()).toBe(1);
    }
    expect(admin.url()).toContain('/tutor/new');
    await expectAccessible(admin);
    await screenshot(admin, 'tutor-new-validation');

    await admin.getByLabel('First Name').fill('Nora');
    await admin.getByLabel('Last Name').fill(lastName);
    await admin.getByLabel('Address line 1').fill('7 Canal Street');
    await admin.getByLabel('Address line 2').fill('Jericho');
    await admin.getByLabel('Postcode').click();
    await expect.poll(() => admin.getByLabel('Username').inputValue()).toBe(username);
    await expect.poll(() => admin.getByLabel('Invoice Prefix').inputValue()).toBe('NQ');
    await admin.getByLabel('Postcode').fill('OX2 6AU');
    await admin.getByLabel('Email').fill(email);
    await admin.getByLabel('Phone 1', { exact: true }).fill('07700 900777');
    await screenshot(admin, 'tutor-new-suggested');
    await admin.getByRole('button', { name: 'Save' }).click();
    await admin.waitForURL(/\/tutor\/[0-9a-f-]{36}$/);
    tutorUrl = new URL(admin.url()).pathname;
    await admin.getByRole('heading', { name: `Nora ${lastName}` }).waitFor();
    await expect.poll(() => admin.getByText('Jericho').count()).toBe(1);
    expect(await admin.getByText(username, { exact: true }).count()).toBe(1);
    await expectAccessible(admin);
    await screenshot(admin, 'tutor-detail');
  });

  it('admin sends the activation e-mail; the tutor activates from the outbox link and sees the tutor menu', async () => {
    await admin.getByRole('button', { name: 'Send Activation Email' }).click();
    await admin.getByText('Activation email has been sent').waitFor();
    expect(await admin.getByRole('button', { name: 'Send Activation Email' }).count()).toBe(0);
    await screenshot(admin, 'tutor-activation-sent');
    const link = await linkFromOutbox(email, 'activate', seenMail);

    const tutor = await openAnonymous(browser);
    await tutor.goto(link);
    await tutor.getByRole('heading', { name: 'Activation' }).waitFor();
    // The username the e-mail named is filled in from the link; cleared here to see the messages.
    await expect.poll(() => tutor.getByLabel('Username').inputValue()).toBe(username);
    await tutor.getByLabel('Username').fill('');
    await tutor.getByRole('button', { name: 'Activate' }).click();
    for (const message of ['Please enter your username', 'Please enter a password', 'Please confirm your password']) {
      await expect.poll(() => tutor.getByText(message).count()).toBe(1);
    }
    await tutor.getByLabel('Username').fill(username);
    await tutor.getByLabel('Password', { exact: true }).fill('short');
    await tutor.getByLabel('Confirm Password').fill('different');
    await tutor.getByRole('button', { name: 'Activate' }).click();
    await expect.poll(() => tutor.getByText('Password must be at least 7 characters').count()).toBe(1);
    await expect.poll(() => tutor.getByText('Confirm Password must match password').count()).toBe(1);
    await expectAccessible(tutor);
    await screenshot(tutor, 'activation-validation');

    // A common password is refused by the server, its message shown on the Password field.
    await tutor.getByLabel('Password', { exact: true }).fill('password1');
    await tutor.getByLabel('Confirm Password').fill('password1');
    await tutor.getByRole('button', { name: 'Activate' }).click();
    await expect
      .poll(() => tutor.locator('#password-error').textContent())
      .toBe('This password is too common. Choose another.');

    await tutor.getByLabel('Password', { exact: true }).fill('nora-password');
    await tutor.getByLabel('Confirm Password').fill('nora-password');
    await tutor.getByRole('button', { name: 'Activate' }).click();
    await tutor.waitForURL('**/clients');
    await tutor.getByRole('heading', { name: 'Clients' }).waitFor();
    const menu = tutor.getByRole('navigation', { name: 'Main' });
    await expect.poll(() => menu.getByRole('link').allTextContents()).toEqual(['Clients', 'Lessons', 'Invoices']);
    await screenshot(tutor, 'activated-tutor-menu');

    // The link works once.
    const again = await openAnonymous(browser);
    await again.goto(link);
    await again.getByLabel('Username').fill(username);
    await again.getByLabel('Password', { exact: true }).fill('nora-password');
    await again.getByLabel('Confirm Password').fill('nora-password');
    await again.getByRole('button', { name: 'Activate' }).click();
    await again.getByText('This activation link has already been used', { exact: false }).waitFor();
    await again.context().close();
    await tutor.context().close();

    await admin.reload();
    await admin.getByText('Activated', { exact: true }).waitFor();
  });

  it("admin edits the tutor's contact from the detail page", async () => {
    await admin.goto(tutorUrl);
    await admin.getByRole('link', { name: 'Edit Contact' }).click();
    await admin.getByRole('heading', { name: 'Edit Contact' }).waitFor();
    // The tutor form (POST /api/tutors/tutor), not the family contact form.
    expect(admin.url()).toContain('/tutor/edit/');
    await expect.poll(() => admin.getByLabel('Postcode').inputValue()).toBe('OX2 6AU');
    expect(await admin.getByLabel(/date of birth/i).count()).toBe(0);
    expect(await admin.getByLabel('Username').getAttribute('readonly')).not.toBeNull();
    await expectAccessible(admin);
    await screenshot(admin, 'tutor-edit-contact');
    // A tutor needs no address or phone (a family's contact does).
    for (const line of [1, 2, 3, 4]) await admin.getByLabel(`Address line ${line}`).fill('');
    for (const phone of ['#phone-1', '#phone-2']) await admin.locator(phone).fill('');
    await admin.getByLabel('Postcode').fill('OX2 6ZZ');
    await admin.getByRole('button', { name: 'Save' }).click();
    await admin.waitForURL(`**${tutorUrl}`);
    await admin.getByText('OX2 6ZZ').waitFor();
  });

  it('admin terminates the tutor (End Date defaults to today) and reactivates them', async () => {
    await admin.goto(tutorUrl);
    await admin.getByRole('link', { name: 'Terminate Tutor' }).click();
    await admin.getByRole('heading', { name: 'Terminate Tutor' }).waitFor();
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/London' }).format(new Date());
    expect(await admin.getByLabel('End Date').inputValue()).toBe(today);
    await expectAccessible(admin);
    await screenshot(admin, 'tutor-terminate');
    await admin.getByRole('button', { name: 'Terminate Tutor' }).click();
    await admin.waitForURL(`**${tutorUrl}`);
    await admin.getByText('Inactive', { exact: true }).waitFor();
    expect(await admin.getByRole('link', { name: 'Terminate Tutor' }).count()).toBe(0);

    await admin.getByRole('link', { name: 'Back to tutors' }).click();
    await admin.getByRole('heading', { name: 'Tutors' }).waitFor();
    await expect.poll(() => admin.getByText(`Nora ${lastName}`).count()).toBe(0);
    await admin.getByLabel('Include Inactive').check();
    await expect.poll(() => admin.getByText(`Nora ${lastName}`).count()).toBe(1);
    await admin.getByText(`Nora ${lastName}`).click();

    await admin.getByRole('link', { name: 'Re-activate Tutor' }).click();
    await admin.getByRole('heading', { name: 'Reactivate Tutor' }).waitFor();
    expect(await admin.getByLabel('Start Date').inputValue()).toBe(today);
    expect(await admin.getByText('NQ', { exact: true }).count()).toBe(1);
    await expectAccessible(admin);
    await screenshot(admin, 'tutor-reactivate');
    await admin.getByRole('button', { name: 'Reactivate Tutor' }).click();
    await admin.waitForURL(`**${tutorUrl}`);
    await admin.getByText('Active', { exact: true }).first().waitFor();
    await admin.getByRole('link', { name: 'Terminate Tutor' }).waitFor();
  });

  it('resets a password end to end through the e-mailed link', async () => {
    const page = await openAnonymous(browser);
    await page.goto('/login');
    await page.getByRole('link', { name: 'Forgotten your password?' }).click();
    await page.getByRole('heading', { name: 'Reset Password' }).waitFor();
    await page.getByRole('button', { name: 'Reset' }).click();
    await page.getByText('Username is required').waitFor();
    await expectAccessible(page);
    await screenshot(page, 'reset-entry');
    await page.getByLabel('Enter your username or email address').fill(email);
    await page.getByRole('button', { name: 'Reset' }).click();
    await page.getByText('Thank you. An email has been sent with link for you to change your password.').waitFor();
    expect(await page.getByRole('button', { name: 'Reset' }).count()).toBe(0);
    await screenshot(page, 'reset-success');

    const link = await linkFromOutbox(email, 'reset', seenMail);
    await page.goto(link);
    await page.getByRole('heading', { name: 'Choose a New Password' }).waitFor();
    await expectAccessible(page);
    await page.getByLabel('Password', { exact: true }).fill('qwerty123');
    await page.getByLabel('Confirm Password').fill('qwerty123');
    await page.getByRole('button', { name: 'Set Password' }).click();
    await expect
      .poll(() => page.locator('#password-error').textContent())
      .toBe('This password is too common. Choose another.');
    await page.getByLabel('Password', { exact: true }).fill('nora-new-password');
    await page.getByLabel('Confirm Password').fill('nora-new-password');
    await screenshot(page, 'reset-new-password');
    await page.getByRole('button', { name: 'Set Password' }).click();
    await page.waitForURL('**/clients');
    await page.getByRole('heading', { name: 'Clients' }).waitFor();

    // The new password works on the login page.
    const fresh = await openAnonymous(browser);
    await fresh.goto('/login');
    await fresh.getByLabel('Username').fill(username);
    await fresh.getByLabel('Password').fill('nora-new-password');
    await fresh.getByRole('button', { name: 'Login' }).click();
    await fresh.waitForURL('**/clients');
    await fresh.context().close();
    await page.context().close();
  });
});
