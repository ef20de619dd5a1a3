import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { adminApi, contactFor } from './support/api';
import { launchChromium } from './support/chromium';
import { logInAsAdmin } from './support/session';

/**
 * One command id per action (docs/command-ids.md): when an action's answer is lost (the server did
 * it, the browser saw a network failure), the next, different action on the same page gets an id of
 * its own, so it happens too instead of being taken for a retry of the first.
 */
describe('a page whose action lost its answer: the next action is done too', () => {
  let browser: Browser;
  let page: Page;
  let api: Awaited<ReturnType<typeof adminApi>>;
  const stamp = Date.now() % 100000;

  const get = async (path: string) => {
    const response = await fetch(`${inject('baseUrl')}${path}`, { headers: { authorization: `Bearer ${api.token}` } });
    expect(response.status, path).toBe(200);
    return response.json();
  };

  /** The next POST to `url` reaches the server, which does it; its answer never reaches the page. */
  const loseTheAnswerOf = (url: string) =>
    page.route(
      url,
      async (route) => {
        await route.fetch();
        await route.abort('failed');
      },
      { times: 1 },
    );

  beforeAll(async () => {
    api = await adminApi();
    browser = await launchChromium();
    page = await logInAsAdmin(browser);
  });
  afterAll(() => browser?.close());

  it('a registration: Give a Place loses its answer, then Delete: both are done', async () => {
    const workshop = { description: `Kites ${stamp}`, dateTime: '2099-08-01T10:00', durationMinutes: 60, price: 20 };
    const { event } = await api.post('/api/events', { ...workshop, capacity: 1 });
    const book = (lastName: string) =>
      api.post('/api/events/register', {
        eventId: event.id,
        contact: { ...contactFor('Kay', lastName), phone: '07700 900000' },
        children: [{ firstName: 'Kit', lastName }],
      });
    await book(`First${stamp}`);
    const { registration } = await book(`Waiting${stamp}`);
    // Room for the waiting one: it may be given a place.
    await api.post('/api/events', { id: event.id, ...workshop, capacity: 2 });

    await page.goto(`/workshops/${event.id}/${registration.id}`);
    await loseTheAnswerOf('**/api/events/place');
    await page.getByRole('button', { name: 'Give a Place' }).click();
    await page.getByRole('alert').waitFor();
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Delete' }).click();
    await page.waitForURL((url) => !url.pathname.includes(registration.id));

    const { events } = await get(`/api/history/workshop-event-${event.id}`);
    const done = (type: string) => events.filter((recorded: { type: string }) => recorded.type === type);
    expect(done('WorkshopRegistrationPlaced')).toHaveLength(1);
    expect(done('WorkshopRegistrationDeleted')).toHaveLength(1);
    expect(done('WorkshopRegistrationDeleted')[0].commandId).not.toBe(done('WorkshopRegistrationPlaced')[0].commandId);
  });

  it('a tutor: Send Activation Email loses its answer, then Active is unticked: both are done', async () => {
    const { tutor } = await api.post('/api/tutors/contact', {
      contact: contactFor('Ivo', `Idle${stamp}`),
      tutor: { username: `iidle${stamp}`, invoicePrefix: `II${stamp}`, startDate: '2024-09-01' },
    });

    await page.goto(`/tutor/${tutor.id}`);
    await loseTheAnswerOf(`**/api/tutors/activate/${tutor.id}`);
    await page.getByRole('button', { name: 'Send Activation Email' }).click();
    await page.getByRole('alert').waitFor();
    const active = page.getByLabel('Active', { exact: true });
    // A controlled box: it shows the tutor's state once the command is answered.
    await active.click();
    await expect.poll(() => active.isChecked()).toBe(false);

    await expect.poll(async () => (await get(`/api/tutors/${tutor.id}`)).tutor.active).toBe(false);
    expect((await get(`/api/tutors/${tutor.id}`)).tutor.activationSent).toBe(true);
  });
});
