import { todayIn } from '@agency/domain';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminApi, engagementWithLesson, tutorAndFamily } from './support/api';
import { downloaded, expectAccessible, launchChromium, screenshot } from './support/chromium';
import { startClockedProduct } from './support/clocked-product';
import { logInAt } from './support/session';

/**
 * A pay run and its bank file (docs/money-models.md, "Pay runs"): an engagement whose lessons the
 * agency sells from this month, the tutor's bank details, this month's pay statement confirmed by
 * the tutor in the browser, the run prepared, and its bank file downloaded from Invoices → Pay
 * Runs, to the penny. A month's pay statements are prepared once, so this runs on a product of its
 * own (on today's date: the clock is not moved), where no other file has prepared this month's.
 */
describe('a pay run and its bank file, in the browser', () => {
  let clocked: Awaited<ReturnType<typeof startClockedProduct>>;
  let browser: Browser;
  const stamp = Date.now() % 100000;
  const month = todayIn('Europe/London', new Date()).slice(0, 7);
  const tutorLogin = { username: `payrun${stamp}`, password: 'pay-run-tutor-password' };
  let tutorId = '';
  let reference = '';

  beforeAll(async () => {
    clocked = await startClockedProduct(new Date());
    browser = await launchChromium();
    const api = await adminApi(clocked.baseUrl, clocked.admin);
    const set = await tutorAndFamily(api, {
      tutor: ['Piet', `Payrun${stamp}`],
      username: `piet${stamp}`,
      invoicePrefix: `PR${stamp % 1000}`,
      tutorStart: '2020-01-01',
      family: ['Pam', `Payrun${stamp}`],
      child: ['Pip', `Payrun${stamp}`],
      dob: '2013-06-01',
    });
    tutorId = set.tutorId;
    await api.post('/api/users', { ...tutorLogin, role: 'tutor', tutorId, name: `Piet Payrun${stamp}` });
    // £40 an hour, 25 % the agency's: one hour's lesson pays the tutor £30.00.
    const engagementId = await engagementWithLesson(api, { tutorId, studentId: set.childId, month });
    await api.post(`/api/engagements/money-model/${engagementId}`, { model: 'agency-sells-tuition', from: month });
    await api.post(`/api/tutors/bank-details/${tutorId}`, {
      accountName: 'Piet Payé & Co',
      sortCode: '40-11-62',
      accountNumber: '2143 6587',
    });
    // It answers once the statements are issued, or says they are still under way: asking again waits again.
    let statements: { tutorId: string; reference: string }[] = [];
    for (let underWay = true; underWay; ) {
      ({ statements, underWay } = await api.post('/api/pay-statements', { month }));
    }
    reference = statements.find((statement) => statement.tutorId === tutorId)?.reference ?? '';
    expect(reference).not.toBe('');
  });
  afterAll(async () => {
    await browser?.close();
    await clocked?.stop();
  });

  it('the tutor confirms their statement, and the bank file pays them to the penny', async () => {
    const tutorPage = await logInAt(browser, clocked.baseUrl, tutorLogin.username, tutorLogin.password);
    await tutorPage.goto('/invoices/pay-statements');
    await tutorPage.getByRole('button', { name: reference }).click();
    const panel = tutorPage.getByRole('region', { name: `Pay statement ${reference}` });
    await panel.getByRole('button', { name: 'Confirm statement' }).click();
    await panel.getByText('Confirmed.').waitFor();
    await tutorPage.context().close();

    const api = await adminApi(clocked.baseUrl, clocked.admin);
    const { payRun } = await api.post('/api/pay-runs', { month });
    expect(payRun.month).toBe(month);

    const page = await logInAt(browser, clocked.baseUrl, clocked.admin.username, clocked.admin.password);
    await page.goto(`/invoices/pay-runs?month=${month}`);
    const run = page.getByRole('region', { name: `Pay run ${month}` });
    const line = run.getByRole('row').filter({ hasText: `Payrun${stamp}` });
    await expect.poll(() => line.count()).toBe(1);
    expect(await line.innerText()).toContain('****6587');
    await expectAccessible(page);
    await screenshot(page, 'pay-run');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      run.getByRole('link', { name: 'Download bank file (CSV)' }).click(),
    ]);
    const rows = (await downloaded(download)).toString('utf8').trim().split(/\r?\n/);
    // The name in the Bacs character set (capitals, no accents, "&" kept), the sort code and account
    // number as digits only, pounds from the pence, the reference the run's screen shows.
    const { lines } = await api.get(`/api/pay-runs/${month}`);
    const bankReference = lines.find((paid: { tutorId: string }) => paid.tutorId === tutorId).reference;
    expect(bankReference).toMatch(/^[A-Z0-9][A-Z0-9 ./&-]{5,17}$/);
    expect(await line.innerText()).toContain(bankReference);
    expect(rows).toEqual([
      '"Name","Sort code","Account number","Amount","Reference"',
      `"PIET PAYE & CO","401162","21436587","30.00","${bankReference}"`,
    ]);
  });
});
