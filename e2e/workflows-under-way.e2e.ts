import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { adminApi, contactFor } from './support/api';
import { expectAccessible, launchChromium, screenshot } from './support/chromium';
import { logInAsAdmin } from './support/session';

/**
 * The documents a workflow issues after a command (a cancelled event's credit notes, a
 * consultation's invoice) land a moment later; an open screen shows them when they do, without a
 * reload. (What the screens say while a workflow is held up is checked on the query answers and
 * the status texts: the product here runs in its own process, out of a test's reach.)
 */
describe('workflows after a command, on open screens', () => {
  let browser: Browser;
  let page: Page;
  let api: Awaited<ReturnType<typeof adminApi>>;
  const stamp = Date.now() % 100000;

  beforeAll(async () => {
    api = await adminApi();
    browser = await launchChromium();
    page = await logInAsAdmin(browser);
  });
  afterAll(() => browser?.close());

  const get = async (path: string) => {
    const response = await fetch(`${inject('baseUrl')}${path}`, { headers: { authorization: `Bearer ${api.token}` } });
    expect(response.status).toBe(200);
    return response.json();
  };
  const reloads = () => {
    const navigations: string[] = [];
    page.on('framenavigated', (frame) => navigations.push(frame.url()));
    return navigations;
  };

  it("a cancelled event's page names the credit notes of its invoices", async () => {
    const description = `Kite making ${stamp}`;
    const { event } = await api.post('/api/events', {
      description,
      dateTime: '2099-08-01T10:00',
      durationMinutes: 90,
      price: 25,
      capacity: 10,
    });
    for (const name of ['Ash', 'Bea']) {
      const { registration } = await api.post('/api/events/register', {
        eventId: event.id,
        contact: { ...contactFor(name, `Kite${stamp}`), address: ['1 High Street'], phone: '07700 900000' },
        children: [{ firstName: `${name}kid`, lastName: `Kite${stamp}` }],
      });
      await api.post('/api/events/confirmInvoice', { registrationIds: [registration.id], discountAmount: 0 });
    }
    await page.goto(`/workshops/${event.id}`);
    await page.getByRole('heading', { name: `${description}, 01 Aug 2099 10:00` }).waitFor();
    const navigations = reloads();

    await api.post('/api/events/cancel', { id: event.id });
    const { event: done } = await get(`/api/events/registrations/${event.id}`);
    const notes = done.credits.creditNotes as { id: string; reference: string }[];
    expect(notes).toHaveLength(2);

    const status = page.getByRole('status').filter({ hasText: /^Cancelled/ });
    await expect
      .poll(() => status.textContent(), { timeout: 15_000 })
      .toBe(`Cancelled — credited by ${notes.map((note) => note.reference).join(', ')}`);
    for (const note of notes) {
      const link = status.getByRole('link', { name: note.reference });
      expect(await link.getAttribute('href')).toBe(`/api/family-invoices/doc/${note.id}`);
    }
    expect(navigations).toEqual([]);
    await expectAccessible(page);
    await screenshot(page, 'workshop-event-cancelled-credited');
  });

  it('a consultation recorded elsewhere appears on the open list with its invoice', async () => {
    const surname = `Underway${stamp}`;
    const { client } = await api.post('/api/clients/contact', contactFor('Ida', surname));
    const { child } = await api.post(`/api/clients/child/${client.id}`, {
      firstName: 'Ivo',
      lastName: surname,
      dob: '2014-02-03',
    });
    await page.goto('/consultations');
    await page.getByRole('heading', { name: 'Consultations' }).waitFor();
    const navigations = reloads();

    const { consultation } = await api.post('/api/consultations', {
      client: client.id,
      child: child.id,
      date: '2026-03-09',
      assessment: false,
    });
    expect(consultation.invoiceReference).toMatch(/\d{5}$/);
    const row = page.getByRole('row').filter({ hasText: `Ivo ${surname}` });
    await expect
      .poll(() => row.getByRole('link', { name: consultation.invoiceReference }).count(), { timeout: 15_000 })
      .toBe(1);
    expect(await row.innerText()).not.toContain('Issuing invoice');
    expect(navigations).toEqual([]);
  });
});
