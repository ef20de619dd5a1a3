import dayjs from 'dayjs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminApi, apiAs, contactFor } from './support/api';
import { expectAccessible, launchChromium, screenshot } from './support/chromium';
import { logIn } from './support/session';

/** Two months ago: over, and no other browser test invoices it for these tutors. */
const when = dayjs().subtract(2, 'month');
const YEAR = when.year();
const MONTH = when.month() + 1;
const KEY = when.format('YYYY-MM');
const PERIOD = when.format('MMMM YYYY');

/** The month under way: it can be invoiced only early, once the user has confirmed it. */
const now = dayjs();
const CURRENT = {
  year: now.year(),
  month: now.month() + 1,
  key: now.format('YYYY-MM'),
  period: now.format('MMMM YYYY'),
};

const tokenOf = async (page: Page) => (await page.context().cookies()).find((c) => c.name === 'token')!.value;

describe('generating is not confirming', () => {
  let browser: Browser;
  let tutor: Page;
  let partner: Page;
  const stamp = Date.now() % 100000;
  const seeded = { tutorId: '', partnerTutorId: '', engagementId: '' };

  beforeAll(async () => {
    browser = await launchChromium();
    const admin = await adminApi();
    const newTutor = async (first: string, prefix: string) =>
      (
        await admin.post('/api/tutors/contact', {
          contact: contactFor(first, `Gen${stamp}`),
          tutor: {
            username: `${first}gen${stamp}`.toLowerCase(),
            invoicePrefix: `${prefix}${stamp}`,
            startDate: '2020-01-01',
          },
        })
      ).tutor.id as string;
    seeded.tutorId = await newTutor('Gwen', 'GW');
    seeded.partnerTutorId = await newTutor('Pia', 'PI');
    const { client } = await admin.post('/api/clients/contact', contactFor('Hal', `Home${stamp}`));
    const { child } = await admin.post(`/api/clients/child/${client.id}`, {
      firstName: 'Hana',
      lastName: `Home${stamp}`,
      dob: '2014-03-01',
    });
    const { engagement } = await admin.post('/api/tutors/engagement', {
      tutorId: seeded.tutorId,
      studentId: child.id,
      rate: 40,
      commissionPct: 25,
      partnerPct: 10,
      startDate: '2020-01-01',
      subjects: ['Maths'],
    });
    seeded.engagementId = engagement.id;
    for (const [username, role, tutorId] of [
      [`gwen${stamp}`, 'tutor', seeded.tutorId],
      [`pia${stamp}`, 'partner', seeded.partnerTutorId],
    ] as const) {
      await admin.post('/api/users', { username, password: 'generate-password', role, tutorId, name: username });
    }
    tutor = await logIn(browser, `gwen${stamp}`, 'generate-password');
    partner = await logIn(browser, `pia${stamp}`, 'generate-password');
    await apiAs(await tokenOf(tutor)).post(`/api/lessons/lesson?month=${KEY}`, {
      tutorId: seeded.tutorId,
      lesson: { engagementId: seeded.engagementId, date: `${KEY}-06`, duration: 2 },
    });
  });
  afterAll(() => browser?.close());

  it('previews, generates on request, withdraws (voiding the reference), and generates anew', async () => {
    await tutor.goto(`/lessons?year=${YEAR}&month=${MONTH}`);
    await tutor.getByRole('button', { name: 'Generate Invoice' }).click();
    await tutor.waitForURL(`**/invoice/generate?year=${YEAR}&month=${MONTH}`);
    await tutor.getByText(`invoice for ${PERIOD}: nothing is saved until you generate it.`).waitFor();
    await tutor.getByRole('cell', { name: 'Earnings of £80.00 at 25% commission' }).waitFor();
    expect(await tutor.getByRole('button', { name: 'Confirm' }).count()).toBe(0);
    await expectAccessible(tutor);
    await screenshot(tutor, 'invoice-preview');

    // Cancel writes nothing: the month's lessons are still open.
    await tutor.getByRole('button', { name: 'Cancel' }).click();
    await tutor.waitForURL('**/invoices?**');
    await tutor.goto(`/lessons?year=${YEAR}&month=${MONTH}`);
    await tutor.getByRole('button', { name: 'Add Lessons' }).waitFor();
    expect(await tutor.getByText('(invoiced)').count()).toBe(0);

    await tutor.goto(`/invoice/generate?year=${YEAR}&month=${MONTH}`);
    await tutor.getByRole('button', { name: 'Generate Invoice' }).click();
    const lead = tutor.getByText(new RegExp(`^Invoice \\S+ for ${PERIOD}$`));
    await lead.waitFor();
    const first = ((await lead.textContent()) ?? '').split(' ')[1]!;
    await tutor.getByRole('button', { name: 'Withdraw' }).waitFor();
    await expectAccessible(tutor);

    await tutor.getByRole('button', { name: 'Withdraw' }).click();
    await tutor.getByRole('alertdialog').getByRole('button', { name: 'Withdraw' }).click();
    await tutor.getByTestId('voided').getByText(`${first} (void)`).waitFor();
    await tutor.getByRole('button', { name: 'Generate Invoice' }).waitFor();
    await expectAccessible(tutor);
    await screenshot(tutor, 'invoice-withdrawn');

    await tutor.getByRole('button', { name: 'Generate Invoice' }).click();
    await lead.waitFor();
    const second = ((await lead.textContent()) ?? '').split(' ')[1]!;
    expect(second).not.toBe(first);
    await tutor.getByRole('button', { name: 'Confirm' }).click();
    await tutor.waitForURL(`**/invoices?year=${YEAR}&month=${MONTH}`);
    await tutor.getByRole('link', { name: second }).waitFor();
    // The withdrawn reference stays listed, void, with no document link.
    await tutor.getByText('(void)').waitFor();
    expect(await tutor.getByRole('link', { name: first }).count()).toBe(0);
    await expectAccessible(tutor);
  });

  it('invoices the month under way only once told it locks the rest of it; a month with an invoice offers View Invoice', async () => {
    await apiAs(await tokenOf(tutor)).post(`/api/lessons/lesson?month=${CURRENT.key}`, {
      tutorId: seeded.tutorId,
      lesson: { engagementId: seeded.engagementId, date: `${CURRENT.key}-01`, duration: 1 },
    });
    const lessons = `/lessons?year=${CURRENT.year}&month=${CURRENT.month}`;
    await tutor.goto(lessons);
    await tutor.getByRole('button', { name: 'Generate Invoice' }).click();
    await tutor.waitForURL(`**/invoice/generate?year=${CURRENT.year}&month=${CURRENT.month}`);
    const preview = tutor.getByText(`invoice for ${CURRENT.period}: nothing is saved until you generate it.`);
    await preview.waitFor();

    // On a phone (the page drawn at that width, its menu closed) the question fits the screen.
    await tutor.setViewportSize({ width: 375, height: 740 });
    await tutor.reload();
    await preview.waitFor();
    await tutor.getByRole('button', { name: 'Generate Invoice' }).click();
    const question = tutor.getByRole('alertdialog', { name: `Invoice ${CURRENT.period} before it has ended?` });
    await question
      .getByText(`${CURRENT.period} has not ended yet: invoicing it now locks its lessons up to the end of the month`)
      .waitFor();
    const early = question.getByRole('button', { name: 'Invoice early, lock the rest of the month' });
    const box = await early.boundingBox();
    expect(box && box.x >= 0 && box.x + box.width <= 375).toBe(true);
    await expectAccessible(tutor);
    await screenshot(tutor, 'invoice-early-question');
    // Not yet: nothing is sent, the preview stays.
    await question.getByRole('button', { name: 'Not yet' }).click();
    await expect.poll(() => question.isVisible()).toBe(false);
    await preview.waitFor();
    expect(await tutor.getByText(/^Invoice \S+ for /).count()).toBe(0);
    await tutor.setViewportSize({ width: 1280, height: 800 });
    await tutor.reload();
    await preview.waitFor();

    await tutor.getByRole('button', { name: 'Generate Invoice' }).click();
    await early.click();
    const lead = tutor.getByText(new RegExp(`^Invoice \\S+ for ${CURRENT.period}$`));
    await lead.waitFor();

    // The month's lessons offer its invoice, never another one.
    await tutor.goto(lessons);
    await tutor.getByRole('button', { name: 'View Invoice' }).click();
    await lead.waitFor();
    await tutor.goto(lessons);
    await tutor.getByRole('button', { name: 'View Invoice' }).waitFor();
    expect(await tutor.getByRole('button', { name: 'Generate Invoice' }).count()).toBe(0);
  });

  it('offers Generate Invoice only for a tutor the user may invoice for', async () => {
    await partner.goto(`/lessons?year=${YEAR}&month=${MONTH}`);
    await partner.getByRole('heading', { name: 'Lessons' }).waitFor();
    await partner.getByRole('table').waitFor();
    expect(await partner.locator('#lessons-tutor').inputValue()).toBe('');
    expect(await partner.getByRole('button', { name: /Generate Invoice|No lessons this month/ }).count()).toBe(0);

    await expect.poll(() => partner.locator('#lessons-tutor option').count()).toBeGreaterThan(2);
    await partner.locator('#lessons-tutor').selectOption(seeded.tutorId);
    await partner.getByRole('cell', { name: 'Hana' }).first().waitFor();
    expect(await partner.getByRole('button', { name: /Generate Invoice|No lessons this month/ }).count()).toBe(0);

    await partner.locator('#lessons-tutor').selectOption(seeded.partnerTutorId);
    await partner.getByRole('button', { name: 'No lessons this month' }).waitFor();

    await partner.goto(`/invoice/generate/${seeded.tutorId}?year=${YEAR}&month=${MONTH}`);
    await partner.getByText('You can generate an invoice only for your own lessons.').waitFor();
    await expectAccessible(partner);
  });
});
