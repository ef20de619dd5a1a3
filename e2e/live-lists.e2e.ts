import dayjs from 'dayjs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminApi, contactFor } from './support/api';
import { launchChromium } from './support/chromium';
import { logIn, logInAsAdmin } from './support/session';

/** Five months ago: over, and no other browser test records lessons in it for this tutor. */
const month = dayjs().subtract(5, 'month');
const first = month.startOf('month');

describe('live lists', () => {
  let browser: Browser;
  let admin: Page;
  let partner: Page;
  const stamp = Date.now() % 100000;
  const ids = { tutor: '' };

  beforeAll(async () => {
    browser = await launchChromium();
    const api = await adminApi();
    ({
      tutor: { id: ids.tutor },
    } = await api.post('/api/tutors/contact', {
      contact: contactFor('Lena', `Live${stamp}`),
      tutor: { username: `llive${stamp}`, invoicePrefix: `LL${stamp}`, startDate: '2020-01-01' },
    }));
    const { client } = await api.post('/api/clients/contact', contactFor('Rita', `Real${stamp}`));
    const { child } = await api.post(`/api/clients/child/${client.id}`, {
      firstName: 'Remy',
      lastName: `Real${stamp}`,
      dob: '2014-03-01',
    });
    await api.post('/api/tutors/engagement', {
      tutorId: ids.tutor,
      studentId: child.id,
      rate: 40,
      commissionPct: 25,
      partnerPct: 10,
      startDate: '2020-01-01',
      subjects: ['Maths'],
    });
    const { tutor: own } = await api.post('/api/tutors/contact', {
      contact: contactFor('Paz', `Partner${stamp}`),
      tutor: { username: `ppartner${stamp}`, invoicePrefix: `PZ${stamp}`, startDate: '2020-01-01' },
    });
    await api.post('/api/users', {
      username: `paz${stamp}`,
      password: 'live-password-1',
      role: 'partner',
      tutorId: own.id,
      name: 'Paz',
    });
    admin = await logInAsAdmin(browser);
    partner = await logIn(browser, `paz${stamp}`, 'live-password-1');
  });
  afterAll(() => browser?.close());

  it("an admin's lesson appears on a partner's open Lessons screen, without a reload", async () => {
    await partner.goto(`/lessons?year=${month.year()}&month=${month.month() + 1}&tutorId=${ids.tutor}`);
    await partner.getByText(`There were no lessons for ${month.format('MMMM YYYY')}`).waitFor();
    const navigations: string[] = [];
    partner.on('framenavigated', (frame) => navigations.push(frame.url()));

    await admin.goto(`/lessons/add/${ids.tutor}?month=${month.format('YYYY-MM')}`);
    const day = first.format('ddd DD MMM YYYY');
    await admin.getByRole('button', { name: `Add a lesson for Remy Real${stamp} on ${day}` }).click();
    const input = admin.getByRole('textbox', { name: `Duration for Remy Real${stamp} on ${day}` });
    await input.fill('1.5');
    await input.press('Enter');
    await admin.getByText('60.00').waitFor();

    // The partner's screen catches up by itself: wait for it, generously, rather than time it.
    await partner.getByRole('cell', { name: `Remy Real${stamp}` }).waitFor({ timeout: 15_000 });
    expect(await partner.getByTestId('total-amount').textContent()).toBe('60.00');
    expect(navigations).toEqual([]);
  });
});
