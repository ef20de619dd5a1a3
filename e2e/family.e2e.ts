import { pdfText } from '@agency/scripts/testing/pdf-text';
import { strFromU8, unzipSync } from 'fflate';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { adminApi, contactFor } from './support/api';
import { downloaded, expectAccessible, launchChromium } from './support/chromium';
import { linkFromOutbox } from './support/outbox';
import { logInAsAdmin } from './support/session';

const PHONE = { width: 375, height: 812 };

/** No page of the family's scrolls sideways on a phone. */
const expectNoSidewaysScroll = async (page: Page) =>
  expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBe(
    0,
  );

describe('a family on a phone: signs in by the e-mailed link, opens an invoice, books a workshop, downloads its data', () => {
  let browser: Browser;
  let page: Page;
  const stamp = Date.now() % 100000;
  const family = contactFor('Fay', `Phone${stamp}`);
  const workshop = `Family coding ${stamp}`;
  // The outbox's messages already read, so a later link is a new one, never the one spent before.
  const seen = new Set<string>();
  let clientId = '';

  beforeAll(async () => {
    const api = await adminApi();
    const { client } = await api.post('/api/clients/contact', family);
    clientId = client.id;
    const { child } = await api.post(`/api/clients/child/${client.id}`, {
      firstName: 'Finn',
      lastName: `Phone${stamp}`,
      dob: '2015-05-05',
    });
    await api.post('/api/consultations', { client: client.id, child: child.id, date: '2025-02-03' });
    await api.post('/api/events', {
      description: workshop,
      dateTime: '2099-08-01T10:00',
      durationMinutes: 90,
      price: 25,
      capacity: 8,
    });
    browser = await launchChromium();
    const context = await browser.newContext({
      baseURL: inject('baseUrl'),
      viewport: PHONE,
      isMobile: true,
      hasTouch: true,
    });
    page = await context.newPage();
  });
  afterAll(() => browser?.close());

  it('asks for a link, is told to check its mail, and signs in with the link from the outbox', async () => {
    await page.goto('/family');
    await page.getByRole('heading', { name: 'Family Sign In' }).waitFor();
    await expectAccessible(page);
    await page.getByLabel('Email').fill(family.email);
    await page.getByRole('button', { name: 'Send Me a Link' }).click();
    await page.getByRole('heading', { name: 'Check Your Mail' }).waitFor();
    const link = await linkFromOutbox(family.email, 'family/sign-in', seen);
    await page.goto(link);
    await expectAccessible(page);
    await page.getByRole('button', { name: 'Sign In' }).click();
    await page.getByRole('heading', { name: 'Your Family' }).waitFor();
    await page.getByText(`Finn Phone${stamp}`).waitFor();
    await expectAccessible(page);
    await expectNoSidewaysScroll(page);
  });

  it('sees its invoice and opens its PDF', async () => {
    await page.getByRole('navigation', { name: 'Family pages' }).getByRole('link', { name: 'Invoices' }).click();
    await page.getByRole('heading', { name: 'Invoices' }).waitFor();
    const link = page.getByRole('link', { name: /^Invoice .* \(PDF\)$/ }).first();
    await link.waitFor();
    await expectAccessible(page);
    await expectNoSidewaysScroll(page);
    const href = await link.getAttribute('href');
    expect(href).toMatch(/^\/api\/family\/invoices\/doc\//);
    // The page's own cookie, as the new tab would send it.
    const response = await page.request.get(href ?? '');
    expect(response.status()).toBe(200);
    expect(response.headers()['content-type']).toBe('application/pdf');
    const text = pdfText(await response.body());
    const reference = /^Invoice (.*) \(PDF\)$/.exec((await link.textContent()) ?? '')?.[1];
    expect(text).toContain(reference);
    expect(text).toContain(`Phone${stamp}`);
  });

  it('books a workshop for its child as itself, and sees it confirmed', async () => {
    await page.getByRole('navigation', { name: 'Family pages' }).getByRole('link', { name: 'Bookings' }).click();
    await page.getByRole('heading', { name: 'Workshop Bookings' }).waitFor();
    await page.getByText('No bookings yet.').waitFor();
    const choice = page.getByLabel('Workshop', { exact: true });
    const value = await choice.locator('option', { hasText: workshop }).getAttribute('value');
    await choice.selectOption(value ?? '');
    await page.getByLabel(`Finn Phone${stamp}`).check();
    await expectAccessible(page);
    await page.getByRole('button', { name: 'Book' }).click();
    await page.getByRole('status').filter({ hasText: 'Booked: your places are confirmed.' }).waitFor();
    await page.getByRole('region', { name: workshop }).getByText('Confirmed').waitFor();
    await expectNoSidewaysScroll(page);
  });

  it('downloads its own data', async () => {
    await page.getByRole('navigation', { name: 'Family pages' }).getByRole('link', { name: 'My Data' }).click();
    await page.getByRole('heading', { name: 'My Data' }).waitFor();
    await expectAccessible(page);
    await expectNoSidewaysScroll(page);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download all the data we hold about your family' }).click(),
    ]);
    const files = unzipSync(new Uint8Array(await downloaded(download)));
    const data = JSON.parse(strFromU8(files['export.json'] as Uint8Array));
    expect(data.children).toEqual([expect.objectContaining({ firstName: 'Finn', lastName: `Phone${stamp}` })]);
    expect(data.workshopBookings.length).toBe(1);
  });

  it('makes a calendar address of its confirmed bookings, and lands on its own pages from a staff address', async () => {
    await page.getByRole('button', { name: 'New Calendar Address' }).click();
    const address = page.getByRole('status').getByRole('link');
    await address.waitFor();
    await expectAccessible(page);
    await expectNoSidewaysScroll(page);
    const feed = await page.request.get(new URL((await address.getAttribute('href')) ?? '').pathname);
    expect(feed.status()).toBe(200);
    expect(await feed.text()).toContain(`SUMMARY:${workshop}`);
    await page.goto('/clients');
    await page.waitForURL('**/family/home');
  });

  it('corrects its phone at once, and asks for a new e-mail address that waits for the office', async () => {
    await page.goto('/family/my-data');
    await page.getByRole('button', { name: "Correct Fay's Details" }).click();
    const form = page.getByRole('form', { name: "Correct Fay's details" });
    await form.getByLabel('Phone').fill('07700 900777');
    await expectAccessible(page);
    await expectNoSidewaysScroll(page);
    await form.getByRole('button', { name: 'Save' }).click();
    await page.getByText('07700 900777').waitFor();
    await page.getByRole('button', { name: "Correct Fay's Details" }).click();
    await page.getByLabel('New e-mail address').fill(`fay.moved${stamp}@example.com`);
    await page.getByRole('button', { name: 'Ask to Change E-mail' }).click();
    await page.getByRole('status').filter({ hasText: 'Until the agency confirms it' }).waitFor();
    await expectAccessible(page);
  });

  it("an admin sees the family's login on its page, turns its access off, and the link mailed before is refused", async () => {
    // A link asked for while access is on, not yet opened.
    await page.goto('/family');
    await page.getByLabel('Email').fill(family.email);
    await page.getByRole('button', { name: 'Send Me a Link' }).click();
    await page.getByRole('heading', { name: 'Check Your Mail' }).waitFor();
    const link = await linkFromOutbox(family.email, 'family/sign-in', seen);

    const office = await logInAsAdmin(browser);
    await office.goto(`/client/${clientId}`);
    const section = office.getByRole('region', { name: 'Family Access' });
    const row = section.getByRole('row', { name: new RegExp(family.email) });
    // The family is signed in on its phone: one open session.
    await row.getByRole('cell', { name: '1', exact: true }).waitFor();
    // The new address the family asked for waits for the office, beside the one still in use.
    await row.getByText(`Asked to change to fay.moved${stamp}@example.com`).waitFor();
    const toggle = section.getByLabel(`Can sign in: Fay Phone${stamp}`);
    expect(await toggle.isChecked()).toBe(true);
    await expectAccessible(office);
    // Its state is the server's: it shows unchecked once the turning-off is recorded and read back.
    await toggle.click();
    await row.getByRole('cell', { name: '0', exact: true }).waitFor();
    expect(await section.getByLabel(`Can sign in: Fay Phone${stamp}`).isChecked()).toBe(false);

    await page.goto(link);
    await page.getByRole('button', { name: 'Sign In' }).click();
    await page.getByRole('alert').filter({ hasText: 'Ask for a new link' }).waitFor();
    expect(page.url()).toContain('/family/sign-in/');
    await office.close();
  });
});
