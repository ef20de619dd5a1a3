import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminApi, contactFor } from './support/api';
import { expectAccessible, launchChromium, screenshot } from './support/chromium';
import { logIn, logInAsAdmin } from './support/session';

/** A tutor with an account and two engagements (Amy from January, Ben from 5 March 2025), through the real routes. */
async function seed(stamp: number) {
  const { post } = await adminApi();
  const contact = contactFor;
  const tutorLast = `Lark${stamp}`;
  const { tutor } = await post('/api/tutors/contact', {
    contact: contact('Lena', tutorLast),
    tutor: { username: `llark${stamp}`, invoicePrefix: `LL${stamp}`, startDate: '2024-09-01' },
  });
  const username = `lena${stamp}`;
  await post('/api/users', {
    username,
    password: 'lesson-password',
    role: 'tutor',
    tutorId: tutor.id,
    name: 'Lena Lark',
  });
  const family = `Hart${stamp}`;
  const { client } = await post('/api/clients/contact', contact('Helen', family));
  const amy = (await post(`/api/clients/child/${client.id}`, { firstName: 'Amy', lastName: family, dob: '2013-02-14' }))
    .child;
  const ben = (await post(`/api/clients/child/${client.id}`, { firstName: 'Ben', lastName: family, dob: '2015-06-01' }))
    .child;
  const terms = { tutorId: tutor.id, rate: 40, commissionPct: 25, partnerPct: 10, subjects: ['Maths'] };
  await post('/api/tutors/engagement', { ...terms, studentId: amy.id, startDate: '2025-01-06' });
  await post('/api/tutors/engagement', { ...terms, studentId: ben.id, startDate: '2025-03-05' });
  return { tutor, username, tutorName: `Lena ${tutorLast}`, amy: `Amy ${family}`, ben: `Ben ${family}` };
}

async function headers(page: Page) {
  await page.locator('thead th').first().waitFor();
  return page.locator('thead th').allTextContents();
}

describe('lessons in the browser', () => {
  let browser: Browser;
  let people: Awaited<ReturnType<typeof seed>>;
  const stamp = Date.now() % 100000;

  beforeAll(async () => {
    browser = await launchChromium();
    people = await seed(stamp);
  });
  afterAll(() => browser?.close());

  it('a tutor enters a week by keyboard, moves to the next week, and the month view totals it', async () => {
    const page = await logIn(browser, people.username, 'lesson-password');
    await page.getByRole('link', { name: 'Lessons' }).click();
    await page.getByRole('heading', { name: 'Lessons' }).waitFor();
    await page.getByLabel('Year', { exact: true }).selectOption('2025');
    await page.getByLabel('Month', { exact: true }).selectOption('3');
    await page.getByText('No lessons recorded yet for March 2025').waitFor();
    expect(await headers(page)).toEqual(['Date', 'Student', 'Duration', 'Rate', 'Amount', 'Commission']);
    await expect.poll(() => page.getByRole('button', { name: 'No lessons this month' }).count()).toBe(1);
    await expectAccessible(page);
    await page.getByRole('button', { name: 'Add Lessons' }).click();
    await page.waitForURL('**/lessons/add?month=2025-03');

    // 1 March 2025 is a Saturday: the month's first week is shown whole, its February days greyed.
    await page.getByText('24 Feb 2025 – 02 Mar 2025').waitFor();
    expect(await page.getByRole('button', { name: '‹ Previous week' }).isDisabled()).toBe(true);
    expect(await headers(page)).toEqual([
      'Student',
      ...['Mon 24', 'Tue 25', 'Wed 26', 'Thu 27', 'Fri 28'].map((day) => `${day} Feb 2025 (not in March)`),
      'Sat 01 Mar 2025',
      'Sun 02 Mar 2025',
    ]);
    expect(await page.getByRole('button', { name: /on (Mon|Tue|Wed|Thu|Fri) 2\d Feb 2025/ }).count()).toBe(0);
    await page.getByText('Durations: hours as 1.5 or 1:30, minutes as 90m; a number alone is hours').waitFor();
    const focused = (name: string) =>
      page.getByRole('button', { name }).evaluate((element) => element === document.activeElement);
    // Typing on a focused cell starts editing with that key; 1:30 is an hour and a half; Tab saves
    // and goes on to the next day.
    await page.getByRole('button', { name: `Add a lesson for ${people.amy} on Sat 01 Mar 2025` }).focus();
    await page.keyboard.type('1:30');
    await page.keyboard.press('Tab');
    await page.getByRole('button', { name: `Duration for ${people.amy} on Sat 01 Mar 2025: 1.5 h. Edit` }).waitFor();
    expect(await focused(`Add a lesson for ${people.amy} on Sun 02 Mar 2025`)).toBe(true);
    await expect
      .poll(() => page.getByRole('button', { name: /Amount for .* on Sat 01 Mar 2025: 60.00/ }).count())
      .toBe(1);

    await page.getByRole('button', { name: 'Next week ›' }).click();
    await page.getByText('03 Mar 2025 – 09 Mar 2025').waitFor();
    // Ben's engagement starts on Wednesday 5 March: no cells before it.
    expect(await page.getByRole('button', { name: `Add a lesson for ${people.ben} on Tue 04 Mar 2025` }).count()).toBe(
      0,
    );
    await page.getByRole('button', { name: `Add a lesson for ${people.amy} on Mon 03 Mar 2025` }).focus();
    // Enter, Enter: a new lesson is one hour at the rate, and the focus goes on to Tuesday.
    await page.keyboard.press('Enter');
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: `Amount for ${people.amy} on Mon 03 Mar 2025: 40.00. Edit` }).waitFor();
    expect(await focused(`Add a lesson for ${people.amy} on Tue 04 Mar 2025`)).toBe(true);
    // Shift+Tab saves Tuesday and goes back to Monday's duration.
    await page.keyboard.type('2');
    await page.keyboard.press('Shift+Tab');
    await page.getByRole('button', { name: `Amount for ${people.amy} on Tue 04 Mar 2025: 80.00. Edit` }).waitFor();
    expect(await focused(`Duration for ${people.amy} on Mon 03 Mar 2025: 1 h. Edit`)).toBe(true);
    // Tab on a value is the page's own (Monday's amount); typed over, Enter saves it and goes on to Tuesday's amount.
    await page.keyboard.press('Tab');
    expect(await focused(`Amount for ${people.amy} on Mon 03 Mar 2025: 40.00. Edit`)).toBe(true);
    await page.keyboard.type('55');
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: `Amount for ${people.amy} on Mon 03 Mar 2025: 55.00. Edit` }).waitFor();
    expect(await focused(`Amount for ${people.amy} on Tue 04 Mar 2025: 80.00. Edit`)).toBe(true);
    // Escape leaves the cell as it was.
    await page.getByRole('button', { name: `Add a lesson for ${people.ben} on Wed 05 Mar 2025` }).click();
    await page.keyboard.type('3');
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: `Add a lesson for ${people.ben} on Wed 05 Mar 2025` }).waitFor();
    // A number alone is hours: 90 is refused on the spot, saying how to write minutes, and the input keeps the focus.
    await page.getByRole('button', { name: `Add a lesson for ${people.ben} on Fri 07 Mar 2025` }).focus();
    await page.keyboard.type('90');
    await page.keyboard.press('Tab');
    await page.getByText('Duration cannot be more than 24 hours: for 90 minutes, write 90m').waitFor();
    const friday = page.getByRole('textbox', { name: `Duration for ${people.ben} on Fri 07 Mar 2025` });
    expect(await friday.evaluate((element) => element === document.activeElement)).toBe(true);
    await page.keyboard.press('Escape');
    // A refusal keeps the input with the reason.
    await page.getByRole('button', { name: `Add a lesson for ${people.ben} on Thu 06 Mar 2025` }).click();
    await page.keyboard.type('13');
    await page.keyboard.press('Enter');
    await page.getByText('No more than 12 hours of lessons a day with one student.').waitFor();
    await page.keyboard.press('Escape');
    await expectAccessible(page);
    await screenshot(page, 'lessons-grid-as-tutor');

    await page.getByRole('button', { name: 'Done' }).click();
    await page.waitForURL('**/lessons?year=2025&month=3');
    await page.getByTestId('total-amount').waitFor();
    expect(await page.locator('tbody tr').count()).toBe(3);
    expect(await page.getByTestId('total-amount').textContent()).toBe('195.00');
    expect(await page.getByTestId('total-commission').textContent()).toBe('48.75');
    expect(await page.getByTestId('total-partner').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Generate Invoice' }).count()).toBe(1);
    await expectAccessible(page);
    await screenshot(page, 'lessons-month-as-tutor');
  });

  it('an admin sees the Tutor and Partner Share columns for the chosen tutor, and can add for them', async () => {
    const page = await logInAsAdmin(browser);
    await page.goto(`/lessons?year=2025&month=3&tutorId=${people.tutor.id}`);
    await page.getByTestId('total-partner').waitFor();
    expect(await headers(page)).toEqual([
      'Date',
      'Tutor',
      'Student',
      'Duration',
      'Rate',
      'Amount',
      'Commission',
      'Partner Share',
    ]);
    expect(await page.getByRole('cell', { name: people.tutorName }).count()).toBe(3);
    // 10 % of each commission, half-up per lesson: 1.50 + 1.38 + 2.00.
    expect(await page.getByTestId('total-partner').textContent()).toBe('4.88');
    await page.getByLabel('Tutor', { exact: true }).selectOption('');
    // All tutors: no lessons to add, and no invoice to generate (one tutor's month only).
    await expect.poll(() => page.getByRole('button', { name: 'Add Lessons' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /Generate Invoice|No lessons this month/ }).count()).toBe(0);
    await page.getByLabel('Tutor', { exact: true }).selectOption(people.tutor.id);
    await page.getByRole('button', { name: 'Add Lessons' }).click();
    await page.waitForURL(`**/lessons/add/${people.tutor.id}?month=2025-03`);
    await page.getByRole('button', { name: 'Next week ›' }).click();
    await page.getByRole('button', { name: `Amount for ${people.amy} on Mon 03 Mar 2025: 55.00. Edit` }).waitFor();
    await expectAccessible(page);
    await screenshot(page, 'lessons-grid-as-admin');
    await page.goto(`/lessons?year=2025&month=3&tutorId=${people.tutor.id}`);
    await page.getByTestId('total-partner').waitFor();
    await screenshot(page, 'lessons-month-as-admin');
  });
});
