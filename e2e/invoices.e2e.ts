import { pdfText } from '@agency/scripts/testing/pdf-text';
import dayjs from 'dayjs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminApi, apiAs } from './support/api';
import { expectAccessible, launchChromium, screenshot } from './support/chromium';
import { logIn, logInAsAdmin } from './support/session';

/** Last month: always over, so it can be invoiced, and no other browser test touches it for this tutor. */
const last = dayjs().subtract(1, 'month');
const YEAR = last.year();
const MONTH = last.month() + 1;
const KEY = last.format('YYYY-MM');
const PERIOD = last.format('MMMM YYYY');

const api = (token: string, path: string, body: object) => apiAs(token).post(path, body);

/** A tutor with an account and one engagement (£40 an hour, 25 % commission), through the real routes. */
async function seed(stamp: number) {
  const { token } = await adminApi();
  const contact = (firstName: string, lastName: string) => ({
    firstName,
    lastName,
    address: ['9 Broad Street', 'Oxford'],
    postcode: 'OX1 3AZ',
    email: `${firstName}.${lastName}@example.com`.toLowerCase(),
    phone: [{ type: 'Mobile', number: '07700 900555' }],
  });
  const lastName = `Vance${stamp}`;
  const { tutor } = await api(token, '/api/tutors/contact', {
    contact: contact('Ivy', lastName),
    tutor: { username: `ivance${stamp}`, invoicePrefix: `IV${stamp}`, startDate: '2020-01-01' },
  });
  const username = `ivy${stamp}`;
  await api(token, '/api/users', {
    username,
    password: 'invoice-password',
    role: 'tutor',
    tutorId: tutor.id,
    name: 'Ivy',
  });
  const { client } = await api(token, '/api/clients/contact', contact('Owen', `Oak${stamp}`));
  const { child } = await api(token, `/api/clients/child/${client.id}`, {
    firstName: 'Olive',
    lastName: `Oak${stamp}`,
    dob: '2014-03-01',
  });
  const { engagement } = await api(token, '/api/tutors/engagement', {
    tutorId: tutor.id,
    studentId: child.id,
    rate: 40,
    commissionPct: 25,
    partnerPct: 10,
    startDate: '2020-01-01',
    subjects: ['Maths'],
  });
  return { tutorId: tutor.id as string, username, tutorName: `Ivy ${lastName}`, engagementId: engagement.id as string };
}

/** The tutor's rows in a report group's table (by its heading's test id). */
const inGroup = (page: Page, group: number, name: string) =>
  page.getByTestId(`status-group-${group}`).getByRole('cell', { name, exact: true });

async function openReport(page: Page) {
  await page.goto('/reports/invoices');
  await page.getByRole('heading', { name: 'Invoice Status' }).waitFor();
  await page.getByLabel('Year', { exact: true }).selectOption(String(YEAR));
  await page.getByLabel('Month', { exact: true }).selectOption(String(MONTH));
  await page.getByRole('heading', { name: `Earnings and commission by tutor, ${PERIOD}` }).waitFor();
}

describe('invoices in the browser', () => {
  let browser: Browser;
  let tutorPage: Page;
  let admin: Page;
  let seeded: Awaited<ReturnType<typeof seed>>;
  let reference = '';

  beforeAll(async () => {
    browser = await launchChromium();
    seeded = await seed(Date.now() % 100000);
    tutorPage = await logIn(browser, seeded.username, 'invoice-password');
    admin = await logInAsAdmin(browser);
  });
  afterAll(() => browser?.close());

  it('the tutor records lessons, generates the invoice and confirms it', async () => {
    // Lessons through the API as the signed-in tutor: 1.5 h and 1 h at £40 = £100, 25 % = £25.
    const token = (await tutorPage.context().cookies()).find((cookie) => cookie.name === 'token')!.value;
    for (const [day, duration] of [
      ['05', 1.5],
      ['12', 1],
    ] as const) {
      await api(token, `/api/lessons/lesson?month=${KEY}`, {
        tutorId: seeded.tutorId,
        lesson: { engagementId: seeded.engagementId, date: `${KEY}-${day}`, duration },
      });
    }

    await tutorPage.goto(`/invoice/generate?year=${YEAR}&month=${MONTH}`);
    await tutorPage.getByRole('heading', { name: 'Invoice', exact: true }).waitFor();
    // A preview first: the invoice is made by an explicit action.
    await tutorPage.getByRole('button', { name: 'Generate Invoice' }).click();
    await tutorPage.getByText(/^Invoice \S+ for /).waitFor();
    await tutorPage.getByRole('cell', { name: 'Earnings of £100.00 at 25% commission' }).waitFor();
    expect(await tutorPage.getByRole('row').nth(1).locator('td').allTextContents()).toEqual([
      '1',
      'Earnings of £100.00 at 25% commission',
      '25.00',
    ]);
    expect(await tutorPage.getByTestId('total-commission').textContent()).toBe('25.00');
    reference = ((await tutorPage.getByText(/^Invoice \S+ for /).textContent()) ?? '').split(' ')[1]!;
    expect(reference).toMatch(/^IV\d+\d{4}$/);
    await expectAccessible(tutorPage);
    await screenshot(tutorPage, 'invoice-confirmation');

    await tutorPage.getByRole('button', { name: 'Confirm' }).click();
    await tutorPage.waitForURL(`**/invoices?year=${YEAR}&month=${MONTH}`);
    await tutorPage.getByRole('heading', { name: 'Invoices' }).waitFor();
    await tutorPage.getByRole('link', { name: reference }).waitFor();
    await expect.poll(() => tutorPage.getByText('we have a new bank account').count()).toBe(1);
    expect(await tutorPage.locator('thead th').allTextContents()).toEqual([
      'Period',
      'Date',
      'Earnings',
      'Commission',
      'Invoice',
      'Paid',
    ]);
    await expectAccessible(tutorPage);
    await screenshot(tutorPage, 'invoices-as-tutor');

    // The month is locked now: the confirmation page of a confirmed invoice goes back to the list.
    await tutorPage.goto(`/invoice/generate?year=${YEAR}&month=${MONTH}`);
    await tutorPage.waitForURL(`**/invoices?year=${YEAR}&month=${MONTH}`);
  });

  it('opens the invoice document: a PDF holding the reference and the total', async () => {
    await tutorPage.goto(`/invoices?year=${YEAR}&month=${MONTH}`);
    const link = tutorPage.getByRole('link', { name: reference });
    expect(await link.getAttribute('target')).toBe('_blank');
    const href = await link.getAttribute('href');
    expect(href).toMatch(/^\/api\/invoices\/doc\//);
    // The page's own cookie, as the new tab would send it.
    const response = await tutorPage.request.get(href!);
    expect(response.status()).toBe(200);
    expect(response.headers()['content-type']).toBe('application/pdf');
    const bytes = await response.body();
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
    const text = pdfText(bytes);
    expect(text).toContain(reference);
    expect(text).toContain(seeded.tutorName);
    expect(text).toContain('Earnings of £100.00 at 25% commission');
    expect(text).toMatch(/Total Commission\n£25\.00/);
  });

  it('admin records a payment; the report moves the tutor from group 2 to group 3', async () => {
    await openReport(admin);
    await inGroup(admin, 2, seeded.tutorName).waitFor();
    expect(await inGroup(admin, 3, seeded.tutorName).count()).toBe(0);
    await admin.getByRole('heading', { name: 'Invoice created but not paid' }).waitFor();
    await expectAccessible(admin);
    await screenshot(admin, 'invoice-status-report-before-payment');

    await admin.goto(`/invoices?year=${YEAR}&month=${MONTH}&tutorId=${seeded.tutorId}`);
    await admin.getByRole('link', { name: reference, exact: true }).waitFor();
    expect(await admin.locator('thead th').allTextContents()).toEqual([
      'Period',
      'Date',
      'Tutor',
      'Earnings',
      'Commission',
      'Partner Share',
      'Invoice',
      'Paid',
      'Payment',
    ]);
    expect(await admin.getByRole('img', { name: /^Paid/ }).count()).toBe(0);
    await admin.getByRole('button', { name: `Record payment for ${reference}` }).click();
    await admin.getByLabel('Amount').fill('');
    await admin.getByRole('button', { name: 'Save' }).click();
    await admin.getByText('Amount is required').waitFor();
    await admin.getByLabel('Amount').fill('25.00');
    await expectAccessible(admin);
    await screenshot(admin, 'invoices-record-payment');
    await admin.getByRole('button', { name: 'Save' }).click();
    await admin.getByRole('img', { name: 'Paid £25.00' }).waitFor();
    expect(await admin.getByTestId('total-commission').textContent()).toBe('25.00');
    await screenshot(admin, 'invoices-as-admin');

    await openReport(admin);
    await inGroup(admin, 3, seeded.tutorName).waitFor();
    expect(await inGroup(admin, 2, seeded.tutorName).count()).toBe(0);
    await admin.locator('.recharts-surface').first().waitFor();
    await expectAccessible(admin);
    await screenshot(admin, 'invoice-status-report');
  });
});
