import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminApi, contactFor } from './support/api';
import { expectAccessible, launchChromium, screenshot } from './support/chromium';
import { logInAsAdmin } from './support/session';

/** The tutor and the family come from the real routes; the engagement is made in the browser. */
async function seed(stamp: number) {
  const { post } = await adminApi();
  const contact = contactFor;
  const tutorLast = `Vance${stamp}`;
  const { tutor } = await post('/api/tutors/contact', {
    contact: contact('Iris', tutorLast),
    tutor: { username: `ivance${stamp}`, invoicePrefix: `IV${stamp}`, startDate: '2023-09-01' },
  });
  const surname = `Pemberton${stamp}`;
  const { client } = await post('/api/clients/contact', contact('Helen', surname));
  await post(`/api/clients/child/${client.id}`, { firstName: 'Pip', lastName: surname, dob: '2013-02-14' });
  return { tutorId: tutor.id as string, tutorName: `Iris ${tutorLast}`, studentName: `Pip ${surname}` };
}

const historyRows = (page: Page) => page.getByRole('region', { name: 'History' }).locator('tbody tr');

describe('engagements in the browser', () => {
  let browser: Browser;
  let page: Page;
  let tutorId = '';
  let tutorName = '';
  let studentName = '';

  beforeAll(async () => {
    ({ tutorId, tutorName, studentName } = await seed(Date.now() % 100000));
    browser = await launchChromium();
    page = await logInAsAdmin(browser);
  });
  afterAll(() => browser?.close());

  it('Add Student shows the required messages and finds students by name, literally', async () => {
    await page.goto(`/tutor/${tutorId}`);
    await page.getByRole('heading', { name: tutorName }).waitFor();
    await page.getByRole('link', { name: 'Add Student' }).click();
    await page.getByRole('heading', { name: 'Add Student' }).waitFor();
    await page.getByLabel('Commission %').fill('');
    await page.getByLabel('Partner %').fill('');
    // Leave the field first: its message appearing on blur would move the button mid-click.
    await page.getByLabel('Partner %').blur();
    await page.getByRole('button', { name: 'Save' }).click();
    for (const message of [
      'Student is required',
      'Rate is required',
      'Commission % is required',
      'Partner % is required',
    ]) {
      await expect.poll(() => page.getByText(message, { exact: true }).count()).toBe(1);
    }
    expect(page.url()).toContain(`/engagement/new/${tutorId}`);
    await expectAccessible(page);
    await screenshot(page, 'engagement-new-validation');

    const find = page.getByRole('combobox', { name: 'Find Student' });
    await find.fill('(*');
    await page.getByText('No student matches "(*".').waitFor();
    await find.fill(studentName.slice(0, 6).toLowerCase());
    await page.getByRole('option', { name: new RegExp(studentName) }).click();
    await expect.poll(() => find.inputValue()).toBe(studentName);
  });

  it('admin adds the student with rates, subjects and a start date', async () => {
    await page.getByLabel('Rate').fill('30');
    await page.getByLabel('Commission %').fill('20');
    await page.getByLabel('Partner %').fill('10');
    await page.getByLabel('Start Date').fill('2024-01-01');
    await page.getByRole('checkbox', { name: 'Maths', exact: true }).check();
    await expectAccessible(page);
    await screenshot(page, 'engagement-new');
    await page.getByRole('button', { name: 'Save' }).click();

    await page.waitForURL(/\/engagement\/detail\//);
    await page.getByRole('heading', { name: `${tutorName} — ${studentName}` }).waitFor();
    const terms = page.getByRole('region', { name: 'Engagement' }).locator('tbody tr');
    await expect.poll(() => terms.innerText()).toMatch(/01 Jan 2024\s+£30\.00\s+20%\s+10%\s+Maths/);
    expect(await historyRows(page).count()).toBe(1);
    await expectAccessible(page);
    await screenshot(page, 'engagement-detail');
  });

  it('change rates → the history shows two periods; a subjects change on that day keeps the new rate', async () => {
    // Two lessons already recorded at £30 after the change's date: the change reprices them, and says so.
    const engagementId = page.url().split('/').at(-1)!;
    const { post } = await adminApi();
    for (const [date, duration] of [
      ['2024-03-05', 1],
      ['2024-04-02', 1.5],
    ] as const) {
      await post(`/api/lessons/lesson?month=${date.slice(0, 7)}`, {
        tutorId,
        lesson: { engagementId, date, duration },
      });
    }
    await page.getByRole('link', { name: 'Change Rates' }).click();
    await page.getByRole('heading', { name: 'Change Rates' }).waitFor();
    expect(await page.getByLabel('Rate').inputValue()).toBe('30.00');
    await page.getByLabel('Rate').fill('35');
    await page.getByLabel('From Date').fill('2024-03-01');
    await expectAccessible(page);
    await screenshot(page, 'engagement-rates');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: `${tutorName} — ${studentName}` }).waitFor();
    const repriced = page.getByTestId('repriced');
    await repriced.getByText('Repriced 2 lessons from 01 Mar 2024:').waitFor();
    expect(await repriced.getByRole('listitem').allInnerTexts()).toEqual([
      '05 Mar 2024 (1 hour): £30.00 → £35.00',
      '02 Apr 2024 (1.5 hours): £45.00 → £52.50',
    ]);
    await expectAccessible(page);
    await screenshot(page, 'engagement-repriced');
    await expect.poll(() => historyRows(page).count()).toBe(2);
    expect(await historyRows(page).nth(0).innerText()).toMatch(/01 Mar 2024\s*latest\s+£35\.00\s+20%\s+10%\s+Maths/);
    expect(await historyRows(page).nth(1).innerText()).toMatch(/01 Jan 2024\s+29 Feb 2024\s+£30\.00/);

    await page.getByRole('link', { name: 'Change Subjects' }).click();
    await page.getByRole('heading', { name: 'Change Subjects' }).waitFor();
    expect(await page.getByRole('checkbox', { name: 'Maths', exact: true }).isChecked()).toBe(true);
    await page.getByRole('checkbox', { name: 'Physics', exact: true }).check();
    await page.getByLabel('From Date').fill('2024-03-01');
    await expectAccessible(page);
    await screenshot(page, 'engagement-subjects');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: `${tutorName} — ${studentName}` }).waitFor();
    await expect.poll(() => historyRows(page).nth(0).innerText()).toMatch(/£35\.00\s+20%\s+10%\s+Maths, Physics/);
    expect(await historyRows(page).count()).toBe(2);
  });

  it('a history row opens the edit of that period: a correction', async () => {
    await historyRows(page).nth(1).click();
    await page.getByRole('heading', { name: 'Edit Student' }).waitFor();
    expect(page.url()).toContain('period=2024-01-01');
    expect(await page.getByLabel('Rate').inputValue()).toBe('30.00');
    expect(await page.getByLabel('From Date').inputValue()).toBe('2024-01-01');
    await page.getByText(studentName).waitFor();
    await expectAccessible(page);
    await screenshot(page, 'engagement-edit');
    await page.getByLabel('Rate').fill('31.50');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: `${tutorName} — ${studentName}` }).waitFor();
    await expect.poll(() => historyRows(page).nth(1).innerText()).toMatch(/01 Jan 2024\s+29 Feb 2024\s+£31\.50/);
  });

  it('terminate → the buttons go and the student moves to former students', async () => {
    await page.getByRole('link', { name: 'Terminate' }).click();
    await page.getByRole('heading', { name: 'Terminate Engagement' }).waitFor();
    await page.getByLabel('End Date').fill('2024-02-01');
    await page.getByRole('button', { name: 'Terminate' }).click();
    await page.getByText('The engagement cannot end before its latest terms began on 2024-03-01.').waitFor();
    await page.getByLabel('End Date').fill('2024-06-30');
    await expectAccessible(page);
    await screenshot(page, 'engagement-terminate');
    await page.getByRole('button', { name: 'Terminate' }).click();
    await page.getByRole('heading', { name: `${tutorName} — ${studentName}` }).waitFor();
    await page.getByText('Ended on 30 Jun 2024.').waitFor();
    expect(await page.getByRole('link', { name: 'Change Rates' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Terminate' }).count()).toBe(0);
    expect(await historyRows(page).nth(0).innerText()).toMatch(/01 Mar 2024\s*latest\s+30 Jun 2024/);
    await screenshot(page, 'engagement-detail-ended');

    await page.getByRole('link', { name: 'Back to tutor' }).click();
    await page.getByRole('heading', { name: tutorName }).waitFor();
    const former = page.getByRole('region', { name: 'Former Students' });
    await former.getByRole('link', { name: studentName }).waitFor();
    await page.getByRole('region', { name: 'Current Students' }).getByText('No current students.').waitFor();
    await former.getByRole('link', { name: studentName }).click();
    await page.getByRole('heading', { name: `${tutorName} — ${studentName}` }).waitFor();
  });
});
