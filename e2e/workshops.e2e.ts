import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { adminApi } from './support/api';
import { expectAccessible, launchChromium, screenshot } from './support/chromium';
import { linkFromOutbox } from './support/outbox';
import { logIn, logInAsAdmin } from './support/session';

describe('workshops in the browser: an admin schedules, a parent books without logging in, the admin invoices', () => {
  let browser: Browser;
  let admin: Page;
  let parent: Page;
  const stamp = Date.now() % 100000;
  const description = `Robot building ${stamp}`;
  const email = `parent${stamp}@example.com`;
  const other = `Robot building (Saturday) ${stamp}`;
  const held = "2 places held, awaiting the parents' confirmation";

  beforeAll(async () => {
    // Another event to move to, and an earlier booking of the same family there, to exclude.
    const api = await adminApi();
    const { event } = await api.post('/api/events', {
      description: other,
      dateTime: '2099-07-25T10:00',
      durationMinutes: 120,
      price: 40,
      capacity: 10,
    });
    await api.post('/api/events/register', {
      eventId: event.id,
      contact: {
        firstName: 'Jo',
        lastName: 'Parker',
        address: ['1 High Street'],
        postcode: 'OX1 1AA',
        email,
        phone: '07700 900000',
      },
      // A full row of the register: it must still fit at 1280 px beside the menu.
      children: [
        {
          firstName: 'Cat',
          lastName: 'Parker',
          school: 'St Ebbe’s Primary School',
          schoolYear: 'Year 5',
          allergies: 'Dairy, gluten and eggs',
        },
      ],
    });
    browser = await launchChromium();
    admin = await logInAsAdmin(browser);
    const context = await browser.newContext({ baseURL: inject('baseUrl'), viewport: { width: 1280, height: 900 } });
    parent = await context.newPage();
  });
  afterAll(() => browser?.close());

  it('an admin creates an event from the workshops list', async () => {
    await admin.getByRole('link', { name: 'Workshops' }).first().click();
    await admin.getByRole('heading', { name: 'Workshops' }).waitFor();
    await admin.getByLabel('Include Past Events').waitFor();
    await expectAccessible(admin);
    await admin.getByRole('link', { name: 'New Event' }).click();
    await admin.getByRole('heading', { name: 'New Workshop Event' }).waitFor();
    await admin.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => admin.getByText('Description is required').count()).toBeGreaterThan(0);
    await admin.getByLabel('Description').fill(description);
    await admin.getByLabel('Date and Start Time').fill('2099-07-20T10:00');
    await admin.getByLabel('Price per Child (£)').fill('40');
    await admin.getByLabel('Capacity (children)').fill('5');
    await admin.getByLabel('Location').fill('Village hall');
    await expectAccessible(admin);
    await screenshot(admin, 'workshop-event-new');
    await admin.getByRole('button', { name: 'Save' }).click();
    await admin.getByRole('heading', { name: `${description}, 20 Jul 2099 10:00` }).waitFor();
    await expectAccessible(admin);
  });

  it('a parent books two children on the public page, without logging in', async () => {
    await parent.goto('/book');
    await parent.getByRole('heading', { name: 'Book a Workshop' }).waitFor();
    await expectAccessible(parent);
    await parent.getByRole('link', { name: description }).click();
    await parent.getByRole('heading', { name: `Book: ${description}` }).waitFor();
    await parent.getByRole('button', { name: 'Book' }).click();
    await expect.poll(() => parent.getByText('First name is required').count()).toBeGreaterThan(0);
    await parent.getByLabel('First Name').first().fill('Jo');
    await parent.getByLabel('Last Name').first().fill('Parker');
    await parent.getByLabel('Address line 1').fill('1 High Street');
    await parent.getByLabel('Postcode').fill('OX1 1AA');
    await parent.getByLabel('Email').fill(email);
    await parent.getByLabel('Phone 1', { exact: true }).fill('07700 900000');
    await parent.locator('#child-0-firstName').fill('Ann');
    await parent.locator('#child-0-lastName').fill('Parker');
    await parent.locator('#child-0-allergies').fill('Peanuts');
    await parent.getByRole('button', { name: 'Add Another Child' }).click();
    await parent.locator('#child-1-firstName').fill('Ben');
    await parent.locator('#child-1-lastName').fill('Parker');
    expect(await parent.getByTestId('booking-outlook').innerText()).toBe(
      '5 places are left: the 2 children get places.',
    );
    await expectAccessible(parent);
    await screenshot(parent, 'workshop-booking');
    await parent.getByRole('button', { name: 'Book' }).click();
    // Requested: the places are held until the address confirms the booking from the e-mailed link.
    await parent.getByText(`we have e-mailed a link to ${email}`).waitFor();
    await expectAccessible(parent);
    // Meanwhile the admin sees the places held for it, on the event and in the list of events.
    await admin.reload();
    await admin.getByText(held).waitFor();
    await admin.getByRole('button', { name: 'Back to Workshops' }).click();
    const listed = admin.getByRole('row').filter({ hasText: description });
    await expect.poll(() => listed.innerText()).toContain(held);
    await expectAccessible(admin);
    await listed.getByRole('link', { name: description, exact: true }).click();
    await admin.getByRole('heading', { name: `${description}, 20 Jul 2099 10:00` }).waitFor();
    await parent.goto(await linkFromOutbox(email, 'book/confirm', new Set()));
    await parent.getByRole('heading', { name: 'Confirm Your Booking' }).waitFor();
    await expectAccessible(parent);
    await parent.getByRole('button', { name: 'Confirm Booking' }).click();
    await parent.getByText('2 places').waitFor();
    expect(await parent.getByRole('status').innerText()).toContain('is confirmed');
  });

  it('the admin sees the registration with its allergies, moves it, invoices it with a discount and an excluded line, and records a payment', async () => {
    await admin.reload();
    const row = admin.getByRole('row').filter({ hasText: 'Ann Parker' });
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.innerText()).toContain('Peanuts');
    // Confirmed, its places are taken and no longer held.
    expect(await admin.getByText(held).count()).toBe(0);
    await expectAccessible(admin);
    await screenshot(admin, 'workshop-registrations');
    await row.getByRole('link').click();
    await admin.getByRole('heading', { name: /^Registration:/ }).waitFor();
    await admin.getByText('Not invoiced').waitFor();
    await expectAccessible(admin);
    // A move asks first, saying what it does there.
    await admin.getByRole('button', { name: `${other}, 25 Jul 2099 10:00` }).click();
    const move = admin.getByRole('alertdialog', { name: `Move this registration to ${other}, 25 Jul 2099 10:00?` });
    await move.waitFor();
    expect(await move.innerText()).toContain('is e-mailed to say where the booking moved');
    await move.getByRole('button', { name: 'Move' }).click();
    await admin.getByRole('heading', { name: `Registration: ${other}, 25 Jul 2099 10:00` }).waitFor();
    await admin.getByRole('button', { name: 'Create Invoice' }).click();
    await admin.getByRole('heading', { name: 'Workshop Invoice' }).waitFor();
    await expect.poll(() => admin.getByTestId('invoice-total').innerText()).toBe('120.00');
    await admin.getByRole('checkbox', { name: /for Cat$/ }).uncheck();
    expect(await admin.locator('s', { hasText: 'Cat' }).count()).toBe(1);
    await expect.poll(() => admin.getByTestId('invoice-total').innerText()).toBe('80.00');
    await admin.getByLabel('Discount (£)').fill('1a5');
    await expect.poll(() => admin.getByLabel('Discount (£)').inputValue()).toBe('15');
    await expect.poll(() => admin.getByTestId('invoice-total').innerText()).toBe('65.00');
    await admin.getByLabel('Discount (£)').fill('500');
    await expect.poll(() => admin.getByTestId('invoice-total').innerText()).toBe('0.00');
    await admin.getByLabel('Discount (£)').fill('10');
    await expectAccessible(admin);
    await screenshot(admin, 'workshop-invoice');
    await admin.getByRole('button', { name: 'Confirm' }).click();
    const issued = admin.getByRole('status').filter({ hasText: 'issued for £70.00' });
    await issued.waitFor();
    const reference = await issued.getByRole('link').innerText();
    expect(reference).toMatch(/^[A-Z]+\d{5}$/);
    await admin.goBack();
    await admin.getByRole('link', { name: reference }).waitFor();
    expect(await admin.getByRole('button', { name: 'Create Invoice' }).isDisabled()).toBe(true);
    await admin.getByLabel('Amount Paid (£)').fill('70');
    await admin.getByRole('button', { name: 'Record Payment' }).click();
    await admin.getByText('(paid)').waitFor();
    await expectAccessible(admin);
    await screenshot(admin, 'workshop-registration');
  });

  it('the workshops report shows the register for the day', async () => {
    await admin.goto('/reports/workshops');
    await admin.getByRole('heading', { name: 'Workshops Report' }).waitFor();
    await admin.getByLabel('From', { exact: true }).fill('2099-07-25');
    // Each change of the range shows Loading… until its answer: the register read below is the
    // one day's, not what was drawn for an earlier range and is about to go.
    const dayAnswered = admin.waitForResponse((answer) => answer.url().includes('to=2099-07-25'));
    await admin.getByLabel('To', { exact: true }).fill('2099-07-25');
    await dayAnswered;
    await admin.getByRole('heading', { name: `${other}, 25 Jul 2099 10:00` }).waitFor();
    await expect.poll(() => admin.getByRole('row').filter({ hasText: 'Ben Parker' }).count()).toBe(1);
    // At 1280 px beside the menu the register fits: the allergies are read whole, nothing scrolls.
    const register = admin.getByRole('region', { name: `Register: ${other}, 25 Jul 2099 10:00` });
    const fits = () => register.evaluate((box) => box.scrollWidth <= box.clientWidth);
    expect(await fits()).toBe(true);
    await expectAccessible(admin);
    await screenshot(admin, 'workshops-report');

    // Printed on A4 (about 720 px between the margins): the register alone, allergies in red, nothing cut off.
    await admin.emulateMedia({ media: 'print' });
    await admin.setViewportSize({ width: 720, height: 1000 });
    try {
      expect(await admin.locator('#sidebar').isVisible()).toBe(false);
      expect(await admin.locator('header').first().isVisible()).toBe(false);
      expect(await admin.getByRole('button', { name: 'Print Register' }).isVisible()).toBe(false);
      expect(await admin.getByLabel('From', { exact: true }).isVisible()).toBe(false);
      const allergy = register.getByRole('row').filter({ hasText: 'Ann Parker' }).getByText('Peanuts');
      expect(await allergy.isVisible()).toBe(true);
      expect(await allergy.evaluate((cell) => getComputedStyle(cell).color)).toBe('rgb(185, 28, 28)');
      expect(await fits()).toBe(true);
      const left = await admin.evaluate(
        () => document.querySelector('[data-print-register]')?.getBoundingClientRect().left,
      );
      expect(left).toBe(0);
      await screenshot(admin, 'workshops-register-print');
    } finally {
      await admin.emulateMedia({ media: null });
      await admin.setViewportSize({ width: 1280, height: 900 });
    }
  });

  it('the admin books two children for a parent from the event page and sees them registered; an auditor gets no form', async () => {
    await admin.goto('/workshops');
    await admin.getByRole('link', { name: description, exact: true }).click();
    await admin.getByRole('heading', { name: `${description}, 20 Jul 2099 10:00` }).waitFor();
    const eventPage = new URL(admin.url()).pathname;
    await admin.getByRole('link', { name: 'Book for a Parent' }).click();
    await admin.getByRole('heading', { name: 'Book for a Parent' }).waitFor();
    await admin.getByText(/places left/).waitFor();
    expect(await admin.locator('#website').count()).toBe(0);
    await admin.getByRole('button', { name: 'Book', exact: true }).click();
    await expect.poll(() => admin.getByText('First name is required').count()).toBeGreaterThan(0);
    await admin.getByLabel('First Name').first().fill('Kim');
    await admin.getByLabel('Last Name').first().fill('Oakley');
    await admin.getByLabel('Address line 1').fill('2 Mill Lane');
    await admin.getByLabel('Postcode').fill('OX2 2BB');
    await admin.getByLabel('Email').fill(`oakley${stamp}@example.com`);
    await admin.getByLabel('Phone 1', { exact: true }).fill('07700 900222');
    await admin.locator('#child-0-firstName').fill('Dan');
    await admin.locator('#child-0-lastName').fill('Oakley');
    await admin.getByRole('button', { name: 'Add Another Child' }).click();
    await admin.locator('#child-1-firstName').fill('Eve');
    await admin.locator('#child-1-lastName').fill('Oakley');
    await admin.locator('#child-1-allergies').fill('Dairy');
    await expectAccessible(admin);
    await screenshot(admin, 'workshop-book-for-parent');
    // Usable on a phone: nothing scrolls sideways.
    await admin.setViewportSize({ width: 375, height: 812 });
    expect(await admin.evaluate(() => document.scrollingElement?.scrollWidth ?? 0)).toBeLessThanOrEqual(375);
    await admin.setViewportSize({ width: 1280, height: 900 });
    await admin.getByRole('button', { name: 'Book', exact: true }).click();
    await admin.getByRole('status').filter({ hasText: 'The booking is made.' }).waitFor();
    expect(new URL(admin.url()).pathname).toBe(eventPage);
    for (const child of ['Dan Oakley', 'Eve Oakley']) {
      const row = admin.getByRole('row').filter({ hasText: child });
      await expect.poll(() => row.count()).toBe(1);
      expect(await row.innerText()).not.toContain('waiting list');
    }
    await expectAccessible(admin);

    const username = `wsauditor${stamp}`;
    await (await adminApi()).post('/api/users', {
      username,
      password: 'auditor-password',
      role: 'auditor',
      name: 'Wes Auditor',
    });
    const auditor = await logIn(browser, username, 'auditor-password');
    await auditor.goto(eventPage);
    await auditor.getByRole('heading', { name: `${description}, 20 Jul 2099 10:00` }).waitFor();
    expect(await auditor.getByRole('link', { name: 'Book for a Parent' }).count()).toBe(0);
    await auditor.goto(eventPage.replace('/workshops/', '/workshops/book/'));
    await auditor.getByText("Only an admin can book on a parent's behalf.").waitFor();
    expect(await auditor.getByRole('form', { name: 'Booking' }).count()).toBe(0);
    await expectAccessible(auditor);
  });

  it('the admin deletes a registration only once it is confirmed: Keep changes nothing', async () => {
    await admin.getByRole('row').filter({ hasText: 'Dan Oakley' }).getByRole('link').click();
    await admin.getByRole('heading', { name: /^Registration:/ }).waitFor();
    const registrationPage = admin.url();
    await admin.getByRole('button', { name: 'Delete', exact: true }).click();
    const ask = admin.getByRole('alertdialog', { name: 'Delete this registration?' });
    await ask.waitFor();
    expect(await ask.innerText()).toContain('Dan, Eve lose their places at');
    expect(await ask.innerText()).toContain('Kim Oakley is e-mailed to say the booking is cancelled.');
    // The safe way out has the focus.
    expect(await admin.evaluate(() => document.activeElement?.textContent)).toBe('Keep');
    await expectAccessible(admin);
    await screenshot(admin, 'workshop-delete-confirmation');
    await ask.getByRole('button', { name: 'Keep' }).click();
    await ask.waitFor({ state: 'hidden' });
    expect(admin.url()).toBe(registrationPage);
    await admin.reload();
    await admin.getByText('Registered', { exact: true }).waitFor();

    await admin.getByRole('button', { name: 'Delete', exact: true }).click();
    await ask.getByRole('button', { name: 'Delete' }).click();
    await admin.waitForURL((url) => url.href !== registrationPage);
    await admin.getByRole('heading', { name: `${description}, 20 Jul 2099 10:00` }).waitFor();
    await expect.poll(() => admin.getByRole('row').filter({ hasText: 'Dan Oakley' }).count()).toBe(0);
  });

  it('the public booking page names the agency, gives the event in full, warns before a booking too big for the places left, and says what is done with the details', async () => {
    const api = await adminApi();
    const { event } = await api.post('/api/events', {
      description: `Kite making ${stamp}`,
      dateTime: '2099-08-02T14:00',
      durationMinutes: 90,
      price: 15,
      capacity: 2,
      location: 'The Barn, Iffley',
    });
    const agencyAnswer = await fetch(`${inject('baseUrl')}/api/agency`, {
      headers: { authorization: `Bearer ${api.token}` },
    });
    const agency = (await agencyAnswer.json()) as { name: string; email: string };
    await parent.goto(`/book/${event.id}`);
    await parent.getByRole('heading', { name: `Book: Kite making ${stamp}` }).waitFor();
    expect(await parent.getByTestId('agency-name').innerText()).toBe(agency.name);
    const details = await parent.getByRole('region', { name: 'The workshop' }).innerText();
    for (const fact of [
      '02 Aug 2099',
      '14:00 – 15:30 (90 minutes)',
      'The Barn, Iffley',
      '£15.00 a child',
      '2 places left',
    ]) {
      expect(details).toContain(fact);
    }
    // Before Book: what the booking will come to, as children are added.
    const outlook = parent.getByTestId('booking-outlook');
    expect(await outlook.innerText()).toBe('2 places are left: the child gets a place.');
    await parent.getByRole('button', { name: 'Add Another Child' }).click();
    await parent.getByRole('button', { name: 'Add Another Child' }).click();
    await expect
      .poll(() => outlook.innerText())
      .toBe(
        '2 places are left: a booking of 3 children goes on the waiting list. A booking takes places for all its children or goes on the waiting list whole. To take the places left, book at most 2 children.',
      );
    // Allergies are health data: the field says why it is asked and who sees it, and the form says the rest.
    const allergies = parent.locator('#child-0-allergies');
    expect(await allergies.getAttribute('aria-describedby')).toBe('child-0-allergies-privacy');
    expect(await parent.locator('#child-0-allergies-privacy').innerText()).toContain('seen only by our staff');
    const notice = parent.getByRole('region', { name: 'Your details' });
    expect(await notice.innerText()).toContain(`${agency.name} keeps what you give on this form`);
    expect(await notice.getByRole('link', { name: agency.email }).getAttribute('href')).toBe(`mailto:${agency.email}`);
    await expectAccessible(parent);
    await screenshot(parent, 'workshop-booking-warning');
    await parent.setViewportSize({ width: 375, height: 812 });
    try {
      expect(await parent.evaluate(() => document.scrollingElement?.scrollWidth ?? 0)).toBeLessThanOrEqual(375);
      await screenshot(parent, 'workshop-booking-phone');
    } finally {
      await parent.setViewportSize({ width: 1280, height: 900 });
    }
  });
});
