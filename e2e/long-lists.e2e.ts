import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminApi, contactFor } from './support/api';
import { expectAccessible, launchChromium } from './support/chromium';
import { logInAsAdmin } from './support/session';

/** A month no other browser test records lessons in. */
const YEAR = 2021;
const MONTH = 6;
const TUTORS = 4;
const DAYS = 26;

/** `count` calls of `task`, eight at a time. */
async function inBatches(count: number, task: (index: number) => Promise<unknown>) {
  for (let start = 0; start < count; start += 8) {
    await Promise.all(Array.from({ length: Math.min(8, count - start) }, (_, offset) => task(start + offset)));
  }
}

const bodyRows = (page: Page) => page.locator('tbody tr');

/**
 * Long lists draw a page of 100 rows at a time, with a pager to reach the rest.
 * The clients here sort after every other test's (the list is ordered by last name), so the other
 * tests still find theirs on the first page.
 */
describe('long lists are paged', () => {
  let browser: Browser;
  let page: Page;
  const stamp = Date.now() % 100000;
  const family = `Zzpaged${stamp}`;

  beforeAll(async () => {
    browser = await launchChromium();
    const api = await adminApi();
    await inBatches(105, (index) =>
      api.post('/api/clients/contact', contactFor(`P${String(index).padStart(3, '0')}`, family)),
    );

    // Four tutors with one student each (a tutor's month is one stream: their saves go one by one).
    const { client } = await api.post('/api/clients/contact', contactFor('Mona', `Month${stamp}`));
    const key = `${YEAR}-${String(MONTH).padStart(2, '0')}`;
    await Promise.all(
      Array.from({ length: TUTORS }, async (_, index) => {
        const { tutor } = await api.post('/api/tutors/contact', {
          contact: contactFor('Lorna', `Longmonth${stamp}${index}`),
          tutor: { username: `llong${stamp}${index}`, invoicePrefix: `LM${stamp}${index}`, startDate: '2020-01-01' },
        });
        const { child } = await api.post(`/api/clients/child/${client.id}`, {
          firstName: `Kid${index}`,
          lastName: `Month${stamp}`,
          dob: '2014-03-01',
        });
        const { engagement } = await api.post('/api/tutors/engagement', {
          tutorId: tutor.id,
          studentId: child.id,
          rate: 40,
          commissionPct: 25,
          partnerPct: 10,
          startDate: '2020-01-01',
          subjects: ['Maths'],
        });
        for (let day = 1; day <= DAYS; day++) {
          await api.post(`/api/lessons/lesson?month=${key}`, {
            tutorId: tutor.id,
            lesson: { engagementId: engagement.id, date: `${key}-${String(day).padStart(2, '0')}`, duration: 1 },
          });
        }
      }),
    );
    page = await logInAsAdmin(browser);
  });
  afterAll(() => browser?.close());

  it('the clients list shows its first 100 rows and pages on to the last client', async () => {
    await page.getByRole('heading', { name: 'Clients' }).waitFor();
    const pager = page.getByRole('navigation', { name: 'Clients pages' });
    await pager.waitFor();
    expect(await bodyRows(page).count()).toBe(100);
    expect(await page.getByRole('link', { name: `P104 ${family}` }).count()).toBe(0);
    expect(await pager.getByRole('button', { name: 'Previous' }).isDisabled()).toBe(true);
    await expectAccessible(page);

    // On to the last page, one page at a time: each click waits for the page it asked for (the
    // pager's Next is disabled while a page loads, so its state alone cannot say "last page").
    const next = pager.getByRole('button', { name: 'Next' });
    const shown = async () => (await pager.textContent())?.match(/\(page (\d+) of (\d+)\)/) ?? null;
    for (let at = await shown(); at && at[1] !== at[2]; at = await shown()) {
      const from = at[1];
      await next.click();
      await expect.poll(async () => (await shown())?.[1]).not.toBe(from);
    }
    await page.getByRole('link', { name: `P104 ${family}` }).waitFor();
    expect(await pager.textContent()).toMatch(/of \d+ \(page (\d+) of \1\)/);

    // A page back, a row opens its client as before.
    await pager.getByRole('button', { name: 'Previous' }).click();
    await page
      .getByRole('link', { name: /^P\d{3} / })
      .first()
      .click();
    await page.getByRole('heading', { name: 'Client', exact: true }).waitFor();
  });

  it("the lessons month of all tutors shows 100 rows, the month's totals, and the rest on the next page", async () => {
    await page.goto(`/lessons?year=${YEAR}&month=${MONTH}`);
    const pager = page.getByRole('navigation', { name: 'Lessons pages' });
    await pager.waitFor();
    // 104 lessons: 100 rows and the totals row of the whole month.
    expect(await bodyRows(page).count()).toBe(100);
    expect(await pager.textContent()).toContain('Rows 1–100 of 104 (page 1 of 2)');
    expect(await page.getByTestId('total-amount').textContent()).toBe('4,160.00');
    await expectAccessible(page);

    await pager.getByRole('button', { name: 'Next' }).click();
    await expect.poll(() => bodyRows(page).count()).toBe(4);
    expect(await pager.textContent()).toContain('Rows 101–104 of 104 (page 2 of 2)');
    expect(await page.getByTestId('total-amount').textContent()).toBe('4,160.00');
  });
});
