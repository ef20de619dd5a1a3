import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible, launchChromium, screenshot } from './support/chromium';
import { logInAsAdmin } from './support/session';

async function fillContact(
  page: Page,
  values: {
    first: string;
    last: string;
    line1: string;
    line2?: string;
    postcode: string;
    email: string;
    phone: string;
  },
) {
  await page.getByLabel('First Name').fill(values.first);
  await page.getByLabel('Last Name').fill(values.last);
  await page.getByLabel('Address line 1').fill(values.line1);
  if (values.line2) await page.getByLabel('Address line 2').fill(values.line2);
  await page.getByLabel('Postcode').fill(values.postcode);
  await page.getByLabel('Email').fill(values.email);
  await page.getByLabel('Phone 1', { exact: true }).fill(values.phone);
}

async function addChild(page: Page, first: string, last: string, dob: string) {
  await page.getByRole('button', { name: 'Add Child' }).click();
  await page.getByRole('heading', { name: 'Add Child' }).waitFor();
  await page.getByLabel('First Name').fill(first);
  await page.getByLabel('Last Name').fill(last);
  await page.getByLabel('Date of Birth').fill(dob);
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('heading', { name: 'Client', exact: true }).waitFor();
}

describe('clients area in the browser', () => {
  let browser: Browser;
  let page: Page;
  const surname = `Quill${Date.now() % 100000}`;

  beforeAll(async () => {
    browser = await launchChromium();
    page = await logInAsAdmin(browser);
  });
  afterAll(() => browser?.close());

  it('shows the required-field messages and sends nothing while the form is empty', async () => {
    await page.getByRole('button', { name: 'New Client' }).click();
    await page.getByRole('heading', { name: 'New Client' }).waitFor();
    await page.getByRole('button', { name: 'Save' }).click();
    for (const message of [
      'First name is required',
      'Last name is required',
      'Address is required',
      'Postcode is required',
      'Email is required',
      'Phone is required',
    ]) {
      await expect.poll(() => page.getByText(message).count()).toBeGreaterThan(0);
    }
    expect(page.url()).toContain('/client/new');
    await expectAccessible(page);
    await screenshot(page, 'client-new-validation');
  });

  it('creates a client with a contact and a child, edits the contact, adds a second child', async () => {
    await fillContact(page, {
      first: 'Martha',
      last: surname,
      line1: '12 Orchard Lane',
      line2: 'Headington',
      postcode: 'OX3 7AB',
      email: 'martha@example.com',
      phone: '07700 900123',
    });
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\/client\/[0-9a-f-]{36}$/);
    await page.getByRole('heading', { name: 'Client', exact: true }).waitFor();
    // In the Contacts panel: the Family Access panel, drawn when its answer comes, names her too.
    const contacts = page.getByRole('region', { name: 'Contacts' });
    await expect.poll(() => contacts.getByText(`Martha ${surname}`).count()).toBe(1);
    await expect.poll(() => contacts.getByText('Headington').count()).toBe(1);

    await addChild(page, 'Ivy', surname, '2015-04-09');
    await expect.poll(() => page.getByText('09 Apr 2015').count()).toBe(1);

    await page.getByRole('link', { name: `Edit contact Martha ${surname}` }).click();
    await page.getByRole('heading', { name: 'Edit Contact' }).waitFor();
    await expect.poll(() => page.getByLabel('Postcode').inputValue()).toBe('OX3 7AB');
    await expectAccessible(page);
    await screenshot(page, 'contact-edit');
    await page.getByLabel('Postcode').fill('OX3 9ZZ');
    await page.getByLabel('Phone 2', { exact: true }).fill('01865 555000');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: 'Client', exact: true }).waitFor();
    await expect.poll(() => page.getByText('OX3 9ZZ').count()).toBe(1);
    await expect.poll(() => page.getByText('01865 555000').count()).toBe(1);

    await addChild(page, 'Felix', surname, '2017-11-30');
    await expect.poll(() => page.getByText('30 Nov 2017').count()).toBe(1);
    await expectAccessible(page);
    await screenshot(page, 'client-detail');
  });

  it('a deactivated client is found only under Show Inactive, after a reload too', async () => {
    // The box reflects the saved state, so it flips once the server has confirmed.
    await page.getByLabel('Active').click();
    await expect.poll(() => page.getByLabel('Active').isChecked()).toBe(false);
    await page.goto('/clients');
    await page.getByRole('heading', { name: 'Clients' }).waitFor();
    await page.getByRole('table').waitFor();
    expect(await page.getByText(`Martha ${surname}`).count()).toBe(0);
    await page.getByLabel('Show Inactive?').check();
    await expect.poll(() => page.getByText(`Martha ${surname}`).count()).toBe(1);
    await page.reload();
    await page.getByRole('heading', { name: 'Clients' }).waitFor();
    await page.getByLabel('Show Inactive?').check();
    await expect.poll(() => page.getByText(`Martha ${surname}`).count()).toBe(1);
    await expectAccessible(page);
    await screenshot(page, 'clients-list');
  });

  it('the child form is accessible and checks its required fields', async () => {
    await page.getByText(`Martha ${surname}`).click();
    await page.getByRole('heading', { name: 'Client', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Add Child' }).click();
    await page.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => page.getByText('Date of birth is required').count()).toBe(1);
    await expectAccessible(page);
    await screenshot(page, 'child-new');
  });
});
