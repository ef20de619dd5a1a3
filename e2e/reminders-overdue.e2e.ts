import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { todayIn } from '@agency/domain';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminApi, engagementOf, tutorAndFamily } from './support/api';
import { expectAccessible, launchChromium, screenshot } from './support/chromium';
import { startClockedProduct } from './support/clocked-product';
import { logInAt } from './support/session';

const DAY = 86_400_000;

/**
 * A reminder of an overdue family invoice (docs/reminders.md): the schedule set in Settings →
 * Reminders, this month's lessons invoice issued today and due 14 days later, the reminders chore
 * run twice 22 days from now (8 days overdue), and the reminder seen once: in the Aged Debt report
 * as the family's last reminder, and as one e-mail in the outbox. An invoice only becomes overdue
 * with time, so the product runs on a clock of the test's own, moved on before the chore runs.
 * The invoice is dated by when its billing request was recorded (the store's time), hence today.
 */
describe('a reminder of an overdue family invoice, in the browser', () => {
  let clocked: Awaited<ReturnType<typeof startClockedProduct>>;
  let browser: Browser;
  let reference = '';
  const start = new Date();
  const month = todayIn('Europe/London', start).slice(0, 7);
  const remindedOn = new Date(start.getTime() + 22 * DAY);

  beforeAll(async () => {
    clocked = await startClockedProduct(start);
    browser = await launchChromium();
    const api = await adminApi(clocked.baseUrl, clocked.admin);
    const { tutorId, clientId, childId } = await tutorAndFamily(api, {
      tutor: ['Rita', 'Remind'],
      username: 'ritaremind',
      invoicePrefix: 'RR',
      tutorStart: '2025-09-01',
      family: ['Olga', 'Owing'],
      child: ['Otto', 'Owing'],
      dob: '2014-03-01',
    });
    const engagementId = await engagementOf(api, { tutorId, studentId: childId, startDate: '2020-01-01' });
    // The agency sells this engagement's lessons (no VAT chosen): this month's lesson is a family invoice of £40.00.
    await api.post(`/api/engagements/money-model/${engagementId}`, { model: 'agency-sells-tuition', from: month });
    await api.post(`/api/lessons/lesson?month=${month}`, {
      tutorId,
      lesson: { engagementId, date: `${month}-01`, duration: 1 },
    });
    while ((await api.post('/api/family-invoices/lesson-billing', { month })).underWay);
    const { entries } = await api.get(`/api/family-invoices?client=${clientId}`);
    reference = (entries as { kind: string; reference: string }[]).find((entry) => entry.kind === 'invoice')!.reference;
  });
  afterAll(async () => {
    await browser?.close();
    await clocked?.stop();
  });

  it('Settings → Reminders sets the schedule; the chore reminds once; Aged Debt shows the reminder', async () => {
    const page = await logInAt(browser, clocked.baseUrl, clocked.admin.username, clocked.admin.password);
    await page.goto('/settings/reminders');
    const form = page.getByRole('form', { name: 'Payment reminders' });
    await form.getByLabel('Days after the due date (blank: no reminders)').fill('7, 14');
    await form.getByLabel('Late fee (£, 0 for none)').fill('0');
    await form.getByRole('button', { name: 'Save' }).click();
    await form.getByText('Saved').waitFor();

    // 8 days overdue: the first step (7 days) is due, the second (14) is not.
    clocked.setNow(remindedOn);
    await clocked.product.command.chores.sendReminders();
    await clocked.product.command.chores.sendReminders();

    await page.goto('/reports/aged-debt');
    const row = page.getByRole('row').filter({ hasText: 'Olga Owing' });
    await expect.poll(() => row.count()).toBe(1);
    const cells = await row.getByRole('cell').allInnerTexts();
    // Family, invoices, the age columns, total, last reminder: step 1 on the day the chore ran. (The
    // report's own "today" is the real one, as the queries do not follow the test's clock, so its
    // age columns are not read here.)
    expect(cells[1]).toBe('1');
    expect(cells.at(-2)).toBe('40.00');
    const [year, monthOf, date] = todayIn('Europe/London', remindedOn).split('-');
    const monthName = 'Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec'.split(' ')[Number(monthOf) - 1];
    expect(cells.at(-1)).toBe(`1 on ${date} ${monthName} ${year}`);
    await expectAccessible(page);
    await screenshot(page, 'aged-debt-reminder');

    // One e-mail to the family naming the invoice, though the chore ran twice.
    const outbox = join(clocked.dataDir, 'outbox');
    const reminders = () => {
      let files: string[] = [];
      try {
        files = readdirSync(outbox);
      } catch {
        return 0;
      }
      return files.filter((file) => {
        const text = readFileSync(join(outbox, file), 'utf8');
        return text.includes('To: olga.owing@example.com') && text.includes(reference) && /remind/i.test(text);
      }).length;
    };
    await expect.poll(reminders, { timeout: 10_000 }).toBe(1);
  });
});
