import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminApi, engagementOf, tutorAndFamily } from './support/api';
import { expectAccessible, launchChromium, screenshot } from './support/chromium';
import { startClockedProduct } from './support/clocked-product';
import { logInAt } from './support/session';

type Grid = { students: { engagementId: string; lessons: { id?: string; date: string }[] }[] };

/**
 * A family invoice with a late-change adjustment (docs/money-models.md, "Family lesson invoices"):
 * the agency sells an engagement's lessons at 20 % VAT from February 2026, February is billed, a
 * February lesson is then made half an hour longer, and March's invoice carries the difference as
 * an adjustment line, seen on the Family Invoices screen. Months must begin for this, so the
 * product runs on a clock of the test's own.
 */
describe('a late change on the next family invoice, in the browser', () => {
  let clocked: Awaited<ReturnType<typeof startClockedProduct>>;
  let browser: Browser;
  let marchReference = '';

  beforeAll(async () => {
    clocked = await startClockedProduct(new Date('2026-02-10T12:00:00Z'));
    browser = await launchChromium();
    const api = await adminApi(clocked.baseUrl, clocked.admin);
    const { tutorId, clientId, childId } = await tutorAndFamily(api, {
      tutor: ['Lena', 'Late'],
      username: 'lenalate',
      invoicePrefix: 'LL',
      tutorStart: '2025-09-01',
      family: ['Carla', 'Change'],
      child: ['Cody', 'Change'],
      dob: '2014-03-01',
    });
    const engagementId = await engagementOf(api, { tutorId, studentId: childId, startDate: '2026-01-05' });
    await api.post('/api/agency/money-model', {
      model: 'tutor-pays-commission',
      from: '2026-02',
      vatRate: 20,
      payAfterFamilyPays: false,
    });
    await api.post(`/api/engagements/money-model/${engagementId}`, { model: 'agency-sells-tuition', from: '2026-02' });
    const lesson = (date: string, duration: number, id?: string): Promise<Grid> =>
      api.post(`/api/lessons/lesson?month=${date.slice(0, 7)}`, {
        tutorId,
        lesson: { id, engagementId, date, duration },
      });
    const recorded = await lesson('2026-02-03', 1);
    await lesson('2026-02-17', 1);
    // Each answers once its invoices are issued, or says they are still under way: asking again waits again.
    const bill = async (month: string) => {
      while ((await api.post('/api/family-invoices/lesson-billing', { month })).underWay);
    };
    await bill('2026-02');
    const changed = recorded.students
      .find((row) => row.engagementId === engagementId)
      ?.lessons.find((cell) => cell.date === '2026-02-03' && cell.id);
    expect(changed).toBeDefined();
    await lesson('2026-02-03', 1.5, changed!.id);
    clocked.setNow(new Date('2026-03-05T12:00:00Z'));
    await lesson('2026-03-03', 1);
    await bill('2026-03');
    const { entries } = await api.get(`/api/family-invoices?client=${clientId}`);
    for (const entry of entries as { id: string; kind: string; reference: string }[]) {
      if (entry.kind !== 'invoice') continue;
      const invoice = await api.get(`/api/family-invoices/lines/${entry.id}`);
      if (invoice.month === '2026-03') marchReference = invoice.reference;
    }
    expect(marchReference).not.toBe('');
  });
  afterAll(async () => {
    await browser?.close();
    await clocked?.stop();
  });

  it("shows March's invoice with the February lesson's difference as an adjustment line, VAT and totals to the penny", async () => {
    const page = await logInAt(browser, clocked.baseUrl, clocked.admin.username, clocked.admin.password);
    await page.goto('/family-invoices');
    const row = page.getByRole('row').filter({ hasText: marchReference });
    await row.getByRole('button', { name: 'Lines' }).click();
    const lines = page.getByRole('table', { name: `Lines of invoice ${marchReference}` });
    const adjustment = lines.getByRole('row').filter({ hasText: 'Adjustment' });
    await expect.poll(() => adjustment.count()).toBe(1);
    const cells = await adjustment.getByRole('cell').allInnerTexts();
    // 3 Feb: 1 h billed in February, 1.5 h now: half an hour at £40, £20.00 and £4.00 VAT.
    expect(cells[0]).toBe('03 Feb 2026');
    expect(cells.slice(-2)).toEqual(['20.00', '4.00']);
    const lesson = lines.getByRole('row').filter({ has: page.getByRole('cell', { name: 'Lesson', exact: true }) });
    expect((await lesson.getByRole('cell').allInnerTexts()).slice(-2)).toEqual(['40.00', '8.00']);
    // Net £60.00 (the March lesson and the difference), VAT £12.00, total £72.00.
    expect(await lines.getByTestId('lessons-net').innerText()).toBe('60.00');
    expect(await lines.getByTestId('lessons-vat').innerText()).toBe('12.00 / 72.00');
    await expectAccessible(page);
    await screenshot(page, 'family-invoice-late-change');
  });
});
