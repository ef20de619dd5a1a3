import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminApi, contactFor } from './support/api';
import { expectAccessible, launchChromium, screenshot } from './support/chromium';
import { logInAsAdmin } from './support/session';

/**
 * Settings → Money model and an engagement's own model, in the browser. The agency's change is
 * for a far month, so the other browser tests (sharing this product) still bill on today's model.
 */
describe('money model in the browser', () => {
  let browser: Browser;
  let page: Page;
  let detail = '';
  let tutorId = '';
  let engagementId = '';

  beforeAll(async () => {
    const stamp = Date.now() % 100000;
    const { post } = await adminApi();
    const { tutor } = await post('/api/tutors/contact', {
      contact: contactFor('Mina', `Model${stamp}`),
      tutor: { username: `mmodel${stamp}`, invoicePrefix: `MM${stamp}`, startDate: '2023-09-01' },
    });
    const { client } = await post('/api/clients/contact', contactFor('Ruth', `Owen${stamp}`));
    const { child } = await post(`/api/clients/child/${client.id}`, {
      firstName: 'Ned',
      lastName: `Owen${stamp}`,
      dob: '2013-02-14',
    });
    const { engagement } = await post('/api/tutors/engagement', {
      tutorId: tutor.id,
      studentId: child.id,
      rate: 40,
      commissionPct: 25,
      partnerPct: 0,
      startDate: '2023-09-01',
      subjects: ['Maths'],
    });
    tutorId = tutor.id;
    engagementId = engagement.id;
    detail = `/engagement/detail/${tutorId}/${engagementId}`;
    browser = await launchChromium();
    page = await logInAsAdmin(browser);
  });
  afterAll(() => browser?.close());

  it('Settings → Money model shows the model in force, refuses a past month and lists a change to come', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Money model' }).click();
    await page.getByRole('heading', { name: 'In force' }).waitFor();
    const form = page.getByRole('form', { name: 'Change the money model' });
    await form.getByLabel('Money model').selectOption('introduction');
    await form.getByLabel('From (month)').fill('2020-01');
    await form.getByRole('button', { name: 'Save' }).click();
    await expect
      .poll(() => page.getByText('A money model cannot apply to a month before this one').count())
      .toBeGreaterThan(0);
    await form.getByLabel('From (month)').fill('2099-01');
    await form.getByRole('button', { name: 'Save' }).click();
    const upcoming = page.getByRole('list', { name: 'Upcoming changes' });
    await expect.poll(() => upcoming.getByText('From January 2099').count()).toBe(1);
    expect(await upcoming.innerText()).toContain('Introduction agency');
    await expectAccessible(page);
    await screenshot(page, 'settings-money-model');
  });

  it("the engagement's page gives it its own model from a month on; its lessons leave the commission invoice", async () => {
    await page.goto(detail);
    const panel = page.getByRole('region', { name: 'Money model' });
    await expect.poll(() => panel.getByText("(the agency's)").count()).toBeGreaterThan(0);
    await panel.getByLabel('Its model').selectOption('agency-sells-tuition');
    await panel.getByLabel('From (month)').fill('2098-06');
    await panel.getByRole('button', { name: 'Save' }).click();
    const upcoming = panel.getByRole('list', { name: 'Upcoming money model changes' });
    await expect.poll(() => upcoming.getByText('From June 2098').count()).toBe(1);
    expect(await upcoming.innerText()).toContain("Agency sells the tuition (the engagement's own)");
    await expectAccessible(page);

    // From this month (the form's first month, today's in the agency's time zone) on.
    await page.reload();
    await panel.getByLabel('Its model').selectOption('agency-sells-tuition');
    const month = await panel.getByLabel('From (month)').inputValue();
    await panel.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => panel.getByText("(the engagement's own)").count()).toBeGreaterThan(0);
    const { post } = await adminApi();
    await post(`/api/lessons/lesson?month=${month}`, {
      tutorId,
      lesson: { engagementId, date: `${month}-01`, duration: 1 },
    });
    await page.goto(
      `/invoice/generate/${tutorId}?year=${Number(month.slice(0, 4))}&month=${Number(month.slice(5, 7))}`,
    );
    const note = page.getByRole('list', { name: 'Lessons not on this invoice' });
    await expect
      .poll(() => note.innerText().catch(() => ''))
      .toContain('Not on this invoice: 1 lesson (£40.00) under Agency sells the tuition, billed by the agency');
  });
});
