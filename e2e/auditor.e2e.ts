import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminApi, contactFor } from './support/api';
import { expectAccessible, launchChromium, screenshot } from './support/chromium';
import { logIn, logInAsAdmin } from './support/session';

/** A moment as the As of picker takes it: `YYYY-MM-DDTHH:mm:ss` in the agency's time zone. */
function agencyMoment(instant: Date) {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone: process.env.TZ || 'Europe/London',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(instant);
  const part = (type: string) => parts.find((found) => found.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')}T${part('hour')}:${part('minute')}:${part('second')}`;
}

describe('an auditor in the browser', () => {
  let browser: Browser;
  const stamp = Date.now() % 100000;
  const username = `auditor${stamp}`;
  const ids = { tutor: '', engagement: '', reference: '' };
  let before = '';

  beforeAll(async () => {
    browser = await launchChromium();
    const admin = await adminApi();
    const { tutor } = await admin.post('/api/tutors/contact', {
      contact: contactFor('Ada', `Ledger${stamp}`),
      tutor: { username: `aledger${stamp}`, invoicePrefix: `AL${stamp}`, startDate: '2024-01-01' },
    });
    ids.tutor = tutor.id;
    const family = await admin.post('/api/clients/contact', contactFor('Fern', `Sums${stamp}`));
    const { child } = await admin.post(`/api/clients/child/${family.client.id}`, {
      firstName: 'Rowan',
      lastName: `Sums${stamp}`,
      dob: '2014-02-02',
    });
    const terms = { tutorId: tutor.id, commissionPct: 25, partnerPct: 10, subjects: ['Maths'] };
    const { engagement } = await admin.post('/api/tutors/engagement', {
      ...terms,
      studentId: child.id,
      rate: 30,
      startDate: '2025-01-06',
    });
    ids.engagement = engagement.id;
    await admin.post(`/api/lessons/lesson?from=2025-02-10&to=2025-02-10&month=2025-02&tutorId=${tutor.id}`, {
      tutorId: tutor.id,
      lesson: { engagementId: engagement.id, date: '2025-02-10', duration: 1.5 },
    });
    const { invoice } = await admin.post('/api/invoices/save', { tutorId: tutor.id, year: 2025, month: 2 });
    ids.reference = invoice.reference;
    // A moment after all that was recorded (the next whole second), and a rate change after it.
    // Never a whole minute: the As of field writes those without seconds (16:50, not 16:50:00).
    let next = Math.ceil((Date.now() + 1) / 1000) * 1000;
    if (next % 60_000 === 0) next += 1000;
    before = agencyMoment(new Date(next));
    while (Date.now() <= next) await new Promise((resolve) => setTimeout(resolve, 50));
    await admin.post('/api/tutors/engagement', {
      ...terms,
      id: engagement.id,
      change: 'rates',
      rate: 45,
      startDate: '2025-03-01',
    });
    await admin.post('/api/users', { username, password: 'auditor-password', role: 'auditor', name: 'Ada Auditor' });
  });
  afterAll(() => browser?.close());

  it('traces an invoice item to its lesson and the rate period that priced it', async () => {
    const page = await logIn(browser, username, 'auditor-password');
    await page.goto(`/invoices?year=2025&month=2&tutorId=${ids.tutor}`);
    await page.getByRole('heading', { name: 'Invoices' }).waitFor();
    await page.getByRole('link', { name: `Trace ${ids.reference}` }).click();
    const lesson = page.getByRole('article', { name: 'Lesson on 10 Feb 2025' });
    await lesson.waitFor();
    expect(await lesson.textContent()).toContain('1.5 h at £30.00 = £45.00');
    const period = lesson.getByLabel('Period in force');
    expect(await period.textContent()).toContain('£30.00');
    expect(await period.textContent()).toMatch(/Set by.*Engagement started on 06 Jan 2025/);
    await expectAccessible(page);
    await screenshot(page, 'invoice-trace-as-auditor');
  });

  it('opens the engagement as of a past moment, then back to now', async () => {
    const page = await logIn(browser, username, 'auditor-password');
    await page.goto(`/engagement/detail/${ids.tutor}/${ids.engagement}`);
    const terms = page.getByRole('region', { name: 'Engagement', exact: true });
    await expect.poll(() => terms.textContent()).toContain('£45.00');
    await page.getByLabel('As of').fill(before);
    await page.getByTestId('as-of-banner').waitFor();
    expect(page.url()).toContain(`asOf=${encodeURIComponent(before)}`);
    await expect.poll(() => terms.textContent()).not.toContain('£45.00');
    expect(await terms.textContent()).toContain('£30.00');
    await expectAccessible(page);
    await screenshot(page, 'engagement-as-of');
    await page.getByRole('button', { name: 'Back to now' }).click();
    await expect.poll(() => terms.textContent()).toContain('£45.00');
    expect(await page.getByTestId('as-of-banner').count()).toBe(0);
  });

  it('shows an admin the past engagement read-only: no edit links, which would change the present', async () => {
    const page = await logInAsAdmin(browser);
    await page.goto(`/engagement/detail/${ids.tutor}/${ids.engagement}`);
    const terms = page.getByRole('region', { name: 'Engagement', exact: true });
    await expect.poll(() => terms.textContent()).toContain('£45.00');
    expect(await page.getByRole('link', { name: 'Change Rates' }).count()).toBe(1);
    expect(await page.getByRole('link', { name: /^Edit the period from/ }).count()).toBeGreaterThan(0);
    await page.getByLabel('As of').fill(before);
    await page.getByTestId('as-of-banner').waitFor();
    await expect.poll(() => terms.textContent()).not.toContain('£45.00');
    expect(await page.getByRole('link', { name: 'Change Rates' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Terminate' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: /^Edit the period from/ }).count()).toBe(0);
    await page.getByRole('button', { name: 'Back to now' }).click();
    await expect.poll(() => page.getByRole('link', { name: 'Change Rates' }).count()).toBe(1);
  });

  it('reads the activity log, with a CSV download', async () => {
    const page = await logIn(browser, username, 'auditor-password');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Activity' }).click();
    await page.getByRole('heading', { name: 'Activity' }).waitFor();
    // Oldest first, a page at a time: other tests' commands of the week may come before the change.
    const rateChange = page.getByRole('cell', { name: /Rate changed from £30.00 to £45.00/ });
    const loadMore = page.getByRole('button', { name: 'Load more' });
    await rateChange.or(loadMore).first().waitFor();
    while ((await rateChange.count()) === 0) {
      await loadMore.click();
      await rateChange.or(loadMore).first().waitFor();
    }
    await expect.poll(() => rateChange.count()).toBe(1);
    const csv = await page.getByRole('link', { name: 'Download CSV' }).getAttribute('href');
    expect(csv).toMatch(/^\/api\/activity\?from=\d{4}-\d{2}-\d{2}&to=\d{4}-\d{2}-\d{2}&format=csv$/);
    await expectAccessible(page);
    await screenshot(page, 'activity');
  });

  it('an admin adds an auditor on Settings → Logins and turns it off: it cannot sign in; the auditor reads the list only', async () => {
    const admin = await logInAsAdmin(browser);
    await admin.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    await admin.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Logins' }).click();
    await admin.getByRole('heading', { name: 'Logins' }).waitFor();
    const newcomer = `audrey${stamp}`;
    await admin.getByLabel('Role', { exact: true }).selectOption('auditor');
    await admin.getByLabel('Name', { exact: true }).fill(`Audrey Newcomer${stamp}`);
    await admin.getByLabel('Username', { exact: true }).fill(newcomer);
    await admin.getByLabel('First Password').fill('Sextant-Marlin-4417');
    await admin.getByRole('button', { name: 'Add Login' }).click();
    await admin.getByText(`Login ${newcomer} added as an auditor.`).waitFor();
    const row = admin.getByRole('row', { name: new RegExp(`Audrey Newcomer${stamp}`) });
    await row.getByText('No e-mail address: only logins of tutors have one').waitFor();
    await expectAccessible(admin);
    await screenshot(admin, 'settings-logins');

    // The auditor signs in and reads the list, with no button to change anything.
    const auditor = await logIn(browser, newcomer, 'Sextant-Marlin-4417');
    await auditor.goto('/settings/logins');
    await auditor.getByRole('row', { name: new RegExp(`Audrey Newcomer${stamp}`) }).waitFor();
    expect(await auditor.getByRole('button', { name: /Turn Off|Add Login|Send Password Reset/ }).count()).toBe(0);

    await row.getByRole('button', { name: 'Turn Off' }).click();
    await row.getByRole('button', { name: 'Yes, Turn Off' }).click();
    await admin.getByText(`Audrey Newcomer${stamp}'s login is turned off`).waitFor();
    await row.getByRole('button', { name: 'Turn On' }).waitFor();
    await expect.poll(() => row.getByRole('cell', { name: 'Off', exact: true }).count()).toBe(1);

    // Its session has ended, and signing in again is refused with the reason.
    await auditor.reload();
    await auditor.waitForURL('**/login');
    await auditor.getByLabel('Username').fill(newcomer);
    await auditor.getByLabel('Password').fill('Sextant-Marlin-4417');
    await auditor.getByRole('button', { name: 'Login' }).click();
    await auditor
      .getByText('This login has been turned off. Please contact the office if this is a mistake.')
      .waitFor();
  });
});
