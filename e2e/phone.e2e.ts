import dayjs from 'dayjs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminApi, contactFor, engagementWithLesson } from './support/api';
import { expectAccessible, launchChromium, screenshot } from './support/chromium';
import { logInAsAdmin } from './support/session';

const PHONE = { width: 375, height: 812 };
/** A past month: its grid opens on the week of the 1st. */
const month = dayjs().subtract(4, 'month');

/** How wide the page is: at most the phone's width when nothing scrolls sideways. */
const pageWidth = (page: Page) => page.evaluate(() => document.scrollingElement?.scrollWidth ?? 0);

describe('on a 375 px phone', () => {
  let browser: Browser;
  let admin: Page;
  const ids = { tutor: '', client: '', engagement: '' };

  beforeAll(async () => {
    browser = await launchChromium();
    const stamp = Date.now() % 100000;
    const api = await adminApi();
    ({
      tutor: { id: ids.tutor },
    } = await api.post('/api/tutors/contact', {
      contact: contactFor('Philippa', `Phoneworthington${stamp}`),
      tutor: { username: `pphone${stamp}`, invoicePrefix: `PH${stamp}`, startDate: '2020-01-01' },
    }));
    const { client } = await api.post('/api/clients/contact', contactFor('Maximilian', `Longfamilyname${stamp}`));
    ids.client = client.id;
    const { child } = await api.post(`/api/clients/child/${client.id}`, {
      firstName: 'Bartholomew',
      lastName: `Longfamilyname${stamp}`,
      dob: '2014-03-01',
    });
    ids.engagement = await engagementWithLesson(api, {
      tutorId: ids.tutor,
      studentId: child.id,
      month: month.format('YYYY-MM'),
    });
    admin = await logInAsAdmin(browser);
    await admin.setViewportSize(PHONE);
  });
  afterAll(() => browser?.close());

  it('no main screen scrolls sideways; a list too wide for the phone is cards', async () => {
    const selection = `year=${month.year()}&month=${month.month() + 1}&tutorId=${ids.tutor}`;
    const screens: [path: string, heading: string][] = [
      ['/dashboard', 'Dashboard'],
      ['/clients', 'Clients'],
      [`/client/${ids.client}`, 'Client'],
      ['/tutors', 'Tutors'],
      [`/tutor/${ids.tutor}`, `Philippa Phoneworthington`],
      [`/lessons?${selection}`, 'Lessons'],
      [`/lessons/add/${ids.tutor}?month=${month.format('YYYY-MM')}`, 'Lessons'],
      [`/invoices?${selection}`, 'Invoices'],
      ['/reports/invoices', 'Invoice Status'],
      ['/family-invoices', 'Family Invoices'],
      ['/resources', 'Resources'],
      ['/no/such/page', 'Page not found'],
    ];
    const wide: string[] = [];
    for (const [path, heading] of screens) {
      await admin.goto(path);
      await admin.getByRole('heading', { name: heading }).first().waitFor();
      await admin.waitForLoadState('networkidle');
      const width = await pageWidth(admin);
      if (width > PHONE.width) wide.push(`${path}: ${width}px`);
    }
    expect(wide).toEqual([]);

    // The month's lessons (eight columns) are wider than the phone: each is a card of label: value
    // pairs (components/table.tsx), and the list no longer scrolls even inside its own box.
    await admin.goto(`/lessons?${selection}`);
    const student = admin.getByRole('cell', { name: /Bartholomew/ });
    await student.waitFor();
    expect(await student.getAttribute('data-label')).toBe('Student');
    const fits = await admin
      .locator('table')
      .first()
      .evaluate((table) => table.parentElement!.scrollWidth <= table.parentElement!.clientWidth);
    expect(fits).toBe(true);

    // The header and the open menu fit too.
    await admin.goto('/clients');
    await admin.getByRole('button', { name: 'Menu', exact: true }).click();
    await admin.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Lessons' }).waitFor();
    expect(await pageWidth(admin)).toBeLessThanOrEqual(PHONE.width);
    await screenshot(admin, 'phone-menu');
  });

  it('the timesheet week shows one day per row (student, duration, amount), saved as on the grid', async () => {
    await admin.goto(`/lessons/add/${ids.tutor}?month=${month.format('YYYY-MM')}`);
    const first = month.startOf('month').format('YYYY-MM-DD');
    const day = admin.getByTestId(`day-${first}`);
    await day.waitFor();
    // The grid's table is not drawn: the days are.
    expect(await admin.locator('table').count()).toBe(0);
    await day.getByText('Bartholomew', { exact: false }).waitFor();
    await expectAccessible(admin);
    await screenshot(admin, 'phone-timesheet');
    expect(await pageWidth(admin)).toBeLessThanOrEqual(PHONE.width);

    // The same cell: click the duration, type, Enter saves; the amount follows from the rate.
    const duration = day.getByRole('button', { name: /^Duration/ }).first();
    await duration.click();
    const input = day.getByRole('textbox').first();
    await input.fill('2');
    await input.press('Enter');
    await day.getByText('80.00').waitFor();
    await admin.reload();
    await admin.getByTestId(`day-${first}`).getByText('80.00').waitFor();
  });
});
