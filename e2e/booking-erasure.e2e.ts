import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminApi } from './support/api';
import { downloaded, expectAccessible, launchChromium, screenshot } from './support/chromium';
import { logInAsAdmin } from './support/session';

/**
 * The erasure of a workshop booking of no known family (its own data subject): on the registration's
 * screen an admin downloads its export, then erases it through the dialog, which quotes the
 * server's retention period (here answered as 9 years, so the words cannot be a constant); the
 * page then reads "Erased".
 */
describe('a booking of no known family: export and erasure in the browser', () => {
  let browser: Browser;
  let page: Page;
  let eventId = '';
  let registrationId = '';
  const surname = `Vantongeren${Date.now() % 100000}`;

  beforeAll(async () => {
    const api = await adminApi();
    const { event } = await api.post('/api/events', {
      description: `Kite making ${surname}`,
      dateTime: '2099-08-03T10:00',
      durationMinutes: 120,
      price: 30,
      capacity: 10,
    });
    eventId = event.id;
    const { registration } = await api.post('/api/events/register', {
      eventId: event.id,
      contact: {
        firstName: 'Rosalind',
        lastName: surname,
        address: ['9 Mill Lane'],
        postcode: 'OX2 6AA',
        email: `rosalind.${surname}@example.com`.toLowerCase(),
        phone: '07700 900444',
      },
      children: [{ firstName: 'Bram', lastName: surname, allergies: 'Kiwi' }],
    });
    registrationId = registration.id;
    browser = await launchChromium();
    page = await logInAsAdmin(browser);
    // The server's retention period, whatever RETENTION_YEARS says: the dialog must quote it.
    await page.route('**/api/agency', async (route) => {
      const response = await route.fetch();
      await route.fulfill({ response, json: { ...(await response.json()), retentionYears: 9 } });
    });
  });
  afterAll(() => browser?.close());

  it('exports the booking, then erases it', async () => {
    await page.goto(`/workshops/${eventId}/${registrationId}`);
    await page.getByRole('heading', { name: 'Personal Data' }).waitFor();
    await expect.poll(() => page.getByText(`Rosalind ${surname}`).count()).toBeGreaterThan(0);

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Export', exact: true }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`booking-${registrationId}-export.zip`);
    const zip = await downloaded(download);
    expect(zip.subarray(0, 2).toString('latin1')).toBe('PK');

    await page.getByLabel('Reason for erasure').fill('Asked by the parent');
    await page.getByRole('button', { name: 'Erase Booking' }).click();
    const dialog = page.getByRole('dialog', { name: 'Erase Booking?' });
    await dialog.waitFor();
    const words = await dialog.innerText();
    expect(words).toContain('cannot be undone');
    expect(words).toContain('for 9 years from the invoice');
    await expectAccessible(page);
    await screenshot(page, 'erase-booking-dialog');
    await dialog.getByRole('button', { name: 'Erase', exact: true }).click();

    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Erased' }).count()).toBe(1);
    await expect.poll(() => page.getByText(`Rosalind ${surname}`).count()).toBe(0);
    expect(await page.getByText('Kiwi').count()).toBe(0);
    await expectAccessible(page);
    await screenshot(page, 'booking-erased');
  });

  it('offers no export or erasure of a family’s booking here', async () => {
    const api = await adminApi();
    const { client } = await api.post('/api/clients/contact', {
      firstName: 'Fenella',
      lastName: surname,
      address: ['2 Mill Lane'],
      postcode: 'OX2 6AB',
      email: `fenella.${surname}@example.com`.toLowerCase(),
      phone: [{ type: 'Mobile', number: '07700 900445' }],
    });
    expect(client.id).toEqual(expect.any(String));
    const { registration } = await api.post('/api/events/register', {
      eventId: eventId,
      contact: {
        firstName: 'Fenella',
        lastName: surname,
        address: ['2 Mill Lane'],
        postcode: 'OX2 6AB',
        email: `fenella.${surname}@example.com`.toLowerCase(),
        phone: '07700 900445',
      },
      children: [{ firstName: 'Ivo', lastName: surname }],
    });
    await page.goto(`/workshops/${eventId}/${registration.id}`);
    await expect.poll(() => page.getByText(`Fenella ${surname}`).count()).toBeGreaterThan(0);
    expect(await page.getByRole('heading', { name: 'Personal Data' }).count()).toBe(0);
  });
});
