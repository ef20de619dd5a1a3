import dayjs from 'dayjs';
import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminApi, contactFor, engagementWithLesson } from './support/api';
import { expectAccessible, launchChromium } from './support/chromium';
import { logIn, logInAsAdmin } from './support/session';

const WIDE = { width: 1280, height: 800 };
const PHONE = { width: 375, height: 812 };
const PASSWORD = 'fit-and-roles-password';

/** The names of controls that change something (a whole first word: "Erased", a subject's name, is none). */
const EDIT =
  /^(save|edit|delete|add|new|book for a parent|erase|terminate|reactivate|record payment|cancel consultation|create invoice|move to|send|generate|confirm|withdraw)\b/i;

/**
 * Opens `path` inside the running app (the router follows the address, no reload) and waits until
 * it has settled: no request under way (the live-updates stream aside), a heading or an alert
 * drawn, nothing loading, and the page unchanged for a moment.
 */
async function open(page: Page, pending: Set<Request>, path: string) {
  await page.evaluate((to) => {
    history.pushState(null, '', to);
    dispatchEvent(new PopStateEvent('popstate'));
  }, path);
  await expect
    .poll(
      async () =>
        pending.size === 0 &&
        (await page.evaluate(() => {
          const changed = (window as unknown as { lastChange: number }).lastChange;
          const main = document.querySelector('main');
          return (
            performance.now() - changed > 100 &&
            !!main?.querySelector('h1, [role="alert"]') &&
            !/Loading…/.test(main.textContent ?? '')
          );
        })),
      { timeout: 20_000, interval: 50 },
    )
    .toBe(true);
}

/** Follows the requests of `page` and the changes of its document, for `open`. */
async function watch(page: Page) {
  const pending = new Set<Request>();
  const counts = (request: Request) => new URL(request.url()).pathname !== '/api/live';
  page.on('request', (request) => counts(request) && pending.add(request));
  page.on('requestfinished', (request) => pending.delete(request));
  page.on('requestfailed', (request) => pending.delete(request));
  await page.evaluate(() => {
    const mark = () => {
      (window as unknown as { lastChange: number }).lastChange = performance.now();
    };
    mark();
    new MutationObserver(mark).observe(document.body, {
      subtree: true,
      childList: true,
      attributes: true,
      characterData: true,
    });
  });
  return pending;
}

/** Whether the page scrolls sideways, and each table whose box hides columns without the cue (a shade and a visible hint). */
const fitOf = (page: Page) =>
  page.evaluate(() => {
    const doc = document.scrollingElement ?? document.documentElement;
    const uncued = [...document.querySelectorAll('table')].flatMap((table, index) => {
      const box = table.parentElement as HTMLElement;
      if (box.scrollWidth <= box.clientWidth + 1) return [];
      const hint = box.parentElement?.parentElement?.querySelector(':scope > .table-scroll-hint');
      const shade = box.parentElement?.querySelector(':scope > .table-shade');
      const cued = !!box.dataset.clipped && !!hint?.getClientRects().length && !!shade?.getClientRects().length;
      return cued ? [] : [`table ${index + 1}: ${box.scrollWidth} px in ${box.clientWidth} px`];
    });
    return {
      pageWider: doc.scrollWidth > doc.clientWidth ? `${doc.scrollWidth} px in ${doc.clientWidth} px` : null,
      uncued,
    };
  });

/** The enabled buttons and links on the page named as changing something. */
const editControlsOf = (page: Page) =>
  page.evaluate((pattern) => {
    const edit = new RegExp(pattern, 'i');
    return [...document.querySelectorAll<HTMLElement>('button, a[href], input[type="submit"], [role="button"]')]
      .filter(
        (element) =>
          element.getClientRects().length > 0 &&
          !(element as HTMLButtonElement).disabled &&
          !element.closest('fieldset:disabled, [aria-disabled="true"]'),
      )
      .map((element) =>
        (element.getAttribute('aria-label') || element.textContent || (element as HTMLInputElement).value || '').trim(),
      )
      .filter((name) => edit.test(name));
  }, EDIT.source);

/**
 * Two walks of the running product: the main screens at a desktop's and a phone's width (nothing
 * scrolls sideways, a table too wide for its box says so), and every route as an auditor, a
 * partner and a tutor (no enabled control that changes something where the role may not act, by
 * the menu or by the address). One login each; the screens are opened in the running app rather
 * than reloaded, so the walks stay short.
 */
describe('screens that fit, and read-only roles that see no edit control', () => {
  let browser: Browser;
  const stamp = Date.now() % 100000;
  const month = dayjs().subtract(4, 'month');
  const ids = {
    tutor: '',
    client: '',
    contact: '',
    child: '',
    engagement: '',
    invoice: '',
    event: '',
    registration: '',
    erased: '',
  };
  /** Every screen of the signed-in app, its ids filled in (spec §2's route table and the later ones). */
  let routes: string[] = [];

  beforeAll(async () => {
    browser = await launchChromium();
    const api = await adminApi();
    const newTutor = async (first: string) =>
      (
        await api.post('/api/tutors/contact', {
          contact: contactFor(first, `Walker${stamp}`),
          tutor: {
            username: `${first}walk${stamp}`.toLowerCase(),
            invoicePrefix: `${first.slice(0, 2)}${stamp}`,
            startDate: '2020-01-01',
          },
        })
      ).tutor.id as string;
    ids.tutor = await newTutor('Fitz');
    const family = await api.post('/api/clients/contact', contactFor('Wendy', `Widefamilyname${stamp}`));
    ids.client = family.client.id;
    ids.contact = family.contact.id;
    const { child } = await api.post(`/api/clients/child/${ids.client}`, {
      firstName: 'Bartholomew',
      lastName: `Widefamilyname${stamp}`,
      dob: '2014-03-01',
    });
    ids.child = child.id;
    ids.engagement = await engagementWithLesson(api, {
      tutorId: ids.tutor,
      studentId: child.id,
      month: month.format('YYYY-MM'),
    });
    ({
      invoice: { id: ids.invoice },
    } = await api.post('/api/invoices/save', { tutorId: ids.tutor, year: month.year(), month: month.month() + 1 }));
    await api.post('/api/consultations', {
      client: ids.client,
      child: child.id,
      date: month.format('YYYY-MM-DD'),
      assessment: false,
    });
    ({
      event: { id: ids.event },
    } = await api.post('/api/events', {
      description: `Wide register ${stamp}`,
      dateTime: '2099-08-01T10:00',
      durationMinutes: 120,
      price: 40,
      capacity: 10,
    }));
    ({
      registration: { id: ids.registration },
    } = await api.post('/api/events/register', {
      eventId: ids.event,
      contact: { ...contactFor('Wendy', `Widefamilyname${stamp}`), phone: '07700 900777' },
      children: [
        {
          firstName: 'Bartholomew',
          lastName: `Widefamilyname${stamp}`,
          school: 'St Ebbe’s Primary School',
          schoolYear: 'Year 5',
          allergies: 'Dairy, gluten and eggs',
        },
      ],
    }));
    const erased = await api.post('/api/clients/contact', contactFor('Gone', `Erasedfamily${stamp}`));
    ids.erased = erased.client.id;
    await api.post(`/api/clients/erase/${ids.erased}`, { reason: 'Asked by the family', confirm: true });
    // The read-only logins: an auditor, and a partner and a tutor each linked to a tutor of their own.
    await api.post('/api/users', {
      username: `fitaud${stamp}`,
      password: PASSWORD,
      role: 'auditor',
      name: 'Fit Auditor',
    });
    for (const [role, first] of [
      ['partner', 'Pia'],
      ['tutor', 'Tom'],
    ] as const) {
      const tutorId = await newTutor(first);
      await api.post('/api/users', {
        username: `fit${role}${stamp}`,
        password: PASSWORD,
        role,
        tutorId,
        name: `${first} Walker`,
      });
    }

    const { tutor, client, contact, child: kid, engagement, invoice, event, registration } = ids;
    const selection = `year=${month.year()}&month=${month.month() + 1}`;
    routes = [
      '/dashboard',
      '/clients',
      '/client/new',
      `/client/${client}`,
      `/contact/edit/${contact}`,
      `/contact/new/${client}`,
      `/child/edit/${kid}`,
      `/child/new/${client}`,
      '/tutors',
      '/tutor/new',
      `/tutor/${tutor}`,
      `/tutor/edit/${tutor}`,
      `/tutor/terminate/${tutor}`,
      `/tutor/reactivate/${tutor}`,
      `/engagement/new/${tutor}`,
      `/engagement/detail/${tutor}/${engagement}`,
      `/engagement/edit/${tutor}/${engagement}`,
      `/engagement/rates/${tutor}/${engagement}`,
      `/engagement/subjects/${tutor}/${engagement}`,
      `/engagement/terminate/${tutor}/${engagement}`,
      `/lessons?${selection}`,
      '/lessons/add',
      `/lessons/add/${tutor}?month=${month.format('YYYY-MM')}`,
      `/invoices?${selection}`,
      '/invoice/generate',
      `/invoice/generate/${tutor}?${selection}`,
      `/invoice/trace/${invoice}`,
      '/consultations',
      '/consultations/new',
      '/workshops',
      '/workshops/new',
      `/workshops/edit/${event}`,
      `/workshops/book/${event}`,
      '/workshops/invoice',
      `/workshops/${event}`,
      `/workshops/${event}/${registration}`,
      '/family-invoices',
      `/reports/invoices?${selection}`,
      '/reports/workshops',
      '/resources',
      '/settings',
      '/activity',
    ];
  });
  afterAll(() => browser?.close());

  it('at 1280×800 and at 375×812 no page scrolls sideways and no table hides a column without a cue', async () => {
    const admin = await logInAsAdmin(browser);
    const pending = await watch(admin);
    const { tutor, client, engagement, event, registration } = ids;
    const selection = `year=${month.year()}&month=${month.month() + 1}`;
    const screens = [
      '/dashboard',
      '/clients',
      `/client/${client}`,
      '/tutors',
      `/tutor/${tutor}`,
      `/engagement/detail/${tutor}/${engagement}`,
      `/engagement/new/${tutor}`,
      `/lessons?${selection}&tutorId=${tutor}`,
      `/lessons/add/${tutor}?month=${month.format('YYYY-MM')}`,
      `/invoices?${selection}`,
      '/consultations',
      '/workshops',
      `/workshops/${event}`,
      `/workshops/${event}/${registration}`,
      '/family-invoices',
      `/reports/invoices?${selection}`,
      '/reports/workshops',
      '/activity',
      '/settings',
      '/settings/money-model',
      '/resources',
    ];
    const misfits: string[] = [];
    for (const size of [WIDE, PHONE]) {
      await admin.setViewportSize(size);
      for (const path of screens) {
        await open(admin, pending, path);
        const { pageWider, uncued } = await fitOf(admin);
        if (pageWider) misfits.push(`${size.width} ${path}: the page is ${pageWider}`);
        for (const table of uncued) misfits.push(`${size.width} ${path}: ${table} with no cue`);
      }
    }
    expect(misfits).toEqual([]);

    // On a phone the month's invoices are cards whose values are labelled by their columns.
    await open(admin, pending, `/invoices?${selection}&tutorId=${tutor}`);
    const total = admin.getByRole('cell', { name: 'Total', exact: true });
    expect(await total.getAttribute('data-label')).toBeNull();
    expect(await admin.locator('tfoot td[data-label="Earnings"]').count()).toBe(1);
    await expectAccessible(admin);

    // At 1280 px beside the menu the invoices' last columns scroll, shaded and hinted.
    await admin.setViewportSize(WIDE);
    await open(admin, pending, `/invoices?${selection}`);
    expect((await fitOf(admin)).uncued).toEqual([]);
    await expectAccessible(admin);

    // A refused save puts the focus on the first field in error in the form's order (First Name).
    await open(admin, pending, '/client/new');
    await admin.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => admin.evaluate(() => document.activeElement?.id)).toBe('firstName');

    // A save that stays on its page says so.
    await open(admin, pending, '/settings');
    await admin.getByRole('button', { name: 'Save' }).click();
    await admin.getByRole('status').filter({ hasText: 'Saved' }).waitFor();

    // An erased family's page offers nothing to change, even to an admin.
    await open(admin, pending, `/client/${ids.erased}`);
    expect(await editControlsOf(admin)).toEqual([]);
    expect(await admin.getByLabel('Active').count()).toBe(0);
    await admin.context().close();
  });

  it('an auditor, a partner and a tutor find no enabled edit control on any screen where they may not act', async () => {
    /** Where a partner or a tutor adds their own lessons and generates their own invoice (no other tutor named). */
    const ownWork = new Set([
      `/lessons?year=${month.year()}&month=${month.month() + 1}`,
      '/lessons/add',
      '/invoice/generate',
    ]);
    const found: string[] = [];
    for (const role of ['auditor', 'partner', 'tutor'] as const) {
      const page = await logIn(browser, `fit${role === 'auditor' ? 'aud' : role}${stamp}`, PASSWORD);
      const pending = await watch(page);
      for (const path of routes) {
        if (role !== 'auditor' && ownWork.has(path)) continue;
        await open(page, pending, path);
        const controls = await editControlsOf(page);
        if (controls.length > 0) found.push(`${role} ${path}: ${controls.join(', ')}`);
      }
      if (role === 'partner') {
        // A family's page for a partner: no empty Date of Birth column.
        await open(page, pending, `/client/${ids.client}`);
        expect(await page.getByRole('columnheader', { name: 'Date of Birth' }).count()).toBe(0);
      }
      await page.context().close();
    }
    expect(found).toEqual([]);
  });
});
