import dayjs from 'dayjs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminApi, contactFor } from './support/api';
import { expectAccessible, launchChromium, screenshot } from './support/chromium';
import { logIn, logInAsAdmin } from './support/session';

/** Three months ago: over, and no other browser test invoices it for these tutors. */
const earlier = dayjs().subtract(3, 'month');

describe('the dashboard by role', () => {
  let browser: Browser;
  let admin: Page;
  let tutor: Page;
  const stamp = Date.now() % 100000;
  const seeded = { busy: '', idle: '', reference: '' };

  beforeAll(async () => {
    browser = await launchChromium();
    const api = await adminApi();
    const newTutor = async (first: string, prefix: string) =>
      (
        await api.post('/api/tutors/contact', {
          contact: contactFor(first, `Dash${stamp}`),
          tutor: {
            username: `${first}d${stamp}`.toLowerCase(),
            invoicePrefix: `${prefix}${stamp}`,
            startDate: '2020-01-01',
          },
        })
      ).tutor.id as string;
    seeded.busy = await newTutor('Dora', 'DO');
    seeded.idle = await newTutor('Ivo', 'IO');
    const { client } = await api.post('/api/clients/contact', contactFor('Fay', `Fam${stamp}`));
    const { child } = await api.post(`/api/clients/child/${client.id}`, {
      firstName: 'Finn',
      lastName: `Fam${stamp}`,
      dob: '2014-03-01',
    });
    const { engagement } = await api.post('/api/tutors/engagement', {
      tutorId: seeded.busy,
      studentId: child.id,
      rate: 40,
      commissionPct: 25,
      partnerPct: 10,
      startDate: '2020-01-01',
      subjects: ['Maths'],
    });
    for (const month of [dayjs(), earlier]) {
      await api.post(`/api/lessons/lesson?month=${month.format('YYYY-MM')}`, {
        tutorId: seeded.busy,
        lesson: { engagementId: engagement.id, date: month.startOf('month').format('YYYY-MM-DD'), duration: 1 },
      });
    }
    const { invoice } = await api.post('/api/invoices/save', {
      tutorId: seeded.busy,
      year: earlier.year(),
      month: earlier.month() + 1,
    });
    seeded.reference = invoice.reference;
    await api.post('/api/events', {
      description: `Dashboard workshop ${stamp}`,
      dateTime: '2099-01-15T10:00',
      durationMinutes: 60,
      price: 20,
      capacity: 8,
    });
    await api.post('/api/users', {
      username: `dora${stamp}`,
      password: 'dashboard-password',
      role: 'tutor',
      tutorId: seeded.busy,
      name: 'Dora',
    });
    admin = await logInAsAdmin(browser);
    tutor = await logIn(browser, `dora${stamp}`, 'dashboard-password');
  });
  afterAll(() => browser?.close());

  it('staff: the month against the last, and links to what needs someone', async () => {
    await admin.getByRole('link', { name: 'Tutoring Agency' }).click();
    await admin.waitForURL('**/dashboard');
    await admin.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await admin.getByRole('heading', { name: `${dayjs().format('MMMM YYYY')} so far` }).waitFor();
    expect(await admin.getByRole('rowheader', { name: 'Partner Share' }).count()).toBe(1);
    await admin.locator('.recharts-surface').first().waitFor();
    await expectAccessible(admin);
    await screenshot(admin, 'dashboard-admin');
    // Upcoming workshops with the places left, each a link to its registrations.
    const workshops = admin.getByTestId('upcoming-workshops');
    await workshops.getByRole('link', { name: `Dashboard workshop ${stamp}` }).waitFor();
    expect(await workshops.textContent()).toContain('8 places left');

    await admin
      .getByTestId('no-lessons')
      .getByRole('link', { name: `Ivo Dash${stamp}` })
      .waitFor();
    expect(
      await admin
        .getByTestId('no-lessons')
        .getByRole('link', { name: `Dora Dash${stamp}` })
        .count(),
    ).toBe(0);
    await admin
      .getByTestId('awaiting-confirmation')
      .getByRole('link', { name: `Dora Dash${stamp}, ${earlier.format('MMMM YYYY')}` })
      .click();
    await admin.waitForURL((url) => url.pathname === '/invoices' && url.searchParams.get('tutorId') === seeded.busy);
    await admin.getByRole('link', { name: seeded.reference, exact: true }).waitFor();
  });

  it('tutor: their month, the invoice to confirm (a button) and their current students', async () => {
    await tutor.goto('/dashboard');
    await tutor.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await tutor.getByTestId('current-students').getByText(`Finn Fam${stamp}`).waitFor();
    expect(await tutor.getByRole('rowheader', { name: 'Partner Share' }).count()).toBe(0);
    expect(await tutor.getByTestId('no-lessons').count()).toBe(0);
    await expectAccessible(tutor);
    await screenshot(tutor, 'dashboard-tutor');

    await tutor.getByRole('link', { name: `Confirm ${seeded.reference}` }).click();
    await tutor.getByText(`Invoice ${seeded.reference} for ${earlier.format('MMMM YYYY')}`).waitFor();
    await tutor.getByRole('button', { name: 'Confirm' }).click();
    await tutor.waitForURL('**/invoices?**');
    await tutor.goto('/dashboard');
    await tutor.getByText('There is no invoice waiting for you.').waitFor();
  });
});
