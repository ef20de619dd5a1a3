import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminApi, contactFor } from './support/api';
import { expectAccessible, launchChromium } from './support/chromium';
import { logInAsAdmin } from './support/session';

/** The values the selection's controls show on the open screen. */
const shown = async (page: Page, id: string, withTutor = true) => ({
  year: await page.locator(`#${id}-year`).inputValue(),
  month: await page.locator(`#${id}-month`).inputValue(),
  ...(withTutor ? { tutorId: await page.locator(`#${id}-tutor`).inputValue() } : {}),
});

const openFromMenu = async (page: Page, href: string) => {
  await page.getByRole('navigation', { name: 'Main' }).locator(`a[href="${href}"]`).click();
  await page.waitForURL((url) => url.pathname === href);
};

describe('one global selection of tutor, year and month (spec §3)', () => {
  let browser: Browser;
  let admin: Page;
  let tutorId = '';

  beforeAll(async () => {
    browser = await launchChromium();
    const stamp = Date.now() % 100000;
    const { tutor } = await (await adminApi()).post('/api/tutors/contact', {
      contact: contactFor('Sela', `Select${stamp}`),
      tutor: { username: `sselect${stamp}`, invoicePrefix: `SS${stamp}`, startDate: '2020-01-01' },
    });
    tutorId = tutor.id;
    admin = await logInAsAdmin(browser);
  });
  afterAll(() => browser?.close());

  it('is carried from Lessons to Invoices and the invoice status report, kept in the address and on reload', async () => {
    await admin.goto('/lessons');
    await admin.getByRole('heading', { name: 'Lessons' }).waitFor();
    await expect.poll(() => admin.locator('#lessons-tutor option').count()).toBeGreaterThan(1);
    await admin.locator('#lessons-year').selectOption('2024');
    await admin.locator('#lessons-month').selectOption('10');
    await admin.locator('#lessons-tutor').selectOption(tutorId);
    await admin.getByText('No lessons recorded yet for October 2024').waitFor();

    await openFromMenu(admin, '/invoices');
    await admin.getByRole('heading', { name: 'Invoices' }).waitFor();
    await admin.getByText('No invoices for October 2024').waitFor();
    const url = new URL(admin.url());
    expect(Object.fromEntries(url.searchParams)).toEqual({ year: '2024', month: '10', tutorId });
    await expect.poll(() => shown(admin, 'invoices')).toEqual({ year: '2024', month: '10', tutorId });
    await expectAccessible(admin);

    await admin.reload();
    await admin.getByText('No invoices for October 2024').waitFor();
    await expect.poll(() => shown(admin, 'invoices')).toEqual({ year: '2024', month: '10', tutorId });

    // The report has no tutor choice: it shows the month, and keeps the tutor for the next screen.
    await openFromMenu(admin, '/reports/invoices');
    await admin.getByRole('heading', { name: 'Invoice Status' }).waitFor();
    await expect.poll(() => shown(admin, 'report', false)).toEqual({ year: '2024', month: '10' });
    await admin.getByRole('button', { name: 'Next month' }).click();
    await expect.poll(() => new URL(admin.url()).search).toBe('?year=2024&month=11');

    await openFromMenu(admin, '/lessons');
    await admin.getByText('No lessons recorded yet for November 2024').waitFor();
    await expect.poll(() => shown(admin, 'lessons')).toEqual({ year: '2024', month: '11', tutorId });

    // All tutors is a choice too, and it is carried like the others.
    await admin.locator('#lessons-tutor').selectOption('');
    await openFromMenu(admin, '/invoices');
    await admin.getByText('No invoices for November 2024').waitFor();
    await expect.poll(() => shown(admin, 'invoices')).toEqual({ year: '2024', month: '11', tutorId: '' });
  });
});
