import { createHash, randomUUID } from 'node:crypto';
import { LIMITS } from '@agency/contracts';
import { attachedPdf, startLoopbackSmtp } from '@agency/scripts/testing/loopback-smtp';
import { pdfText } from '@agency/scripts/testing/pdf-text';
import { reactorsSettled } from '@agency/scripts/testing/reactors-settled';
import { startTestProduct, TEST_ADMIN, type TestProduct } from '@agency/scripts/testing/test-product';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

type Json = Record<string, unknown>;

const parent = (email: string, over: Json = {}) => ({
  contact: {
    firstName: 'Jo',
    lastName: 'Lee',
    address: ['1 High Street', 'Oxford'],
    postcode: 'OX1 1AA',
    email,
    phone: '07700 900000',
  },
  children: [{ firstName: 'Ann', lastName: 'Lee', school: 'St Mary', schoolYear: '5', allergies: 'Peanuts' }],
  ...over,
});

describe('workshops: events, public bookings, registrations and workshop invoices (real PostgreSQL, real SMTP)', () => {
  let product: TestProduct;
  let smtp: Awaited<ReturnType<typeof startLoopbackSmtp>>;
  let db: pg.Pool;
  let admin: string;
  let partner: string;
  let shift = 0;

  const post = (url: string, payload: Json, token: string | null = admin) =>
    product.command.app.inject({
      method: 'POST',
      url,
      payload: { commandId: randomUUID(), ...payload },
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
  const ok = async (url: string, payload: Json, token: string | null = admin) => {
    const response = await post(url, payload, token);
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  };
  const get = async (url: string, token = admin) => {
    const response = await fetch(`${product.url}${url}`, { headers: { authorization: `Bearer ${token}` } });
    expect(response.status, url).toBe(200);
    return response.json();
  };
  const countEvents = async () => Number((await db.query('select count(*) from es.events')).rows[0].count);
  const newEvent = async (over: Json = {}) =>
    (
      await ok('/api/events', {
        description: 'Summer science',
        dateTime: '2099-07-20T10:00',
        durationMinutes: 180,
        price: 40,
        capacity: 3,
        location: 'Village hall',
        ...over,
      })
    ).event as { id: string; placesLeft: number };
  let parents = 0;
  /** A parent's booking request, from an address of its own unless one is named (the limits count per address). */
  const request = (eventId: string, email: string, over: Json = {}, remoteAddress = `10.0.0.${++parents}`) =>
    product.command.app.inject({
      method: 'POST',
      url: `/api/public/events/${eventId}/registrations`,
      payload: { commandId: randomUUID(), ...parent(email, over) },
      remoteAddress,
    });
  const mailsTo = (email: string) => smtp.inbox.filter((mail) => mail.to.includes(email));
  /** The secret of the newest confirmation link mailed to `email` (quoted-printable undone). */
  const confirmationToken = async (email: string) => {
    await reactorsSettled(db);
    const raw = mailsTo(email)
      .map((mail) => mail.raw.replace(/=\r?\n/g, ''))
      .filter((text) => text.includes('/book/confirm/'))
      .at(-1);
    const token = raw?.match(/\/book\/confirm\/([A-Za-z0-9_-]+)/)?.[1];
    if (!token) throw new Error(`no confirmation link was mailed to ${email}`);
    return token;
  };
  const confirm = (token: string) =>
    product.command.app.inject({ method: 'POST', url: '/api/public/bookings/confirm', payload: { token } });
  /** A public booking and its confirmation from the e-mailed link: the confirmation's answer. */
  const book = async (eventId: string, email: string, over: Json = {}, remoteAddress?: string) => {
    const asked = await request(eventId, email, over, remoteAddress);
    expect(asked.statusCode, asked.body).toBe(200);
    return confirm(await confirmationToken(email));
  };

  beforeAll(async () => {
    smtp = await startLoopbackSmtp();
    // The commands' "now", moved on by a test past a booking's hold.
    product = await startTestProduct({ smtpUrl: smtp.url }, { clock: () => new Date(Date.now() + shift) });
    db = new pg.Pool({ connectionString: product.databaseUrl });
    admin = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
    partner = await product.command.signSession({ id: 'u-p', username: 'pp', role: 'partner', tutorId: 't-2' });
  });
  afterAll(async () => {
    await db?.end();
    await product?.dispose();
    await smtp?.close();
  });

  it('an admin schedules and changes an event; bad input is refused field by field and writes nothing', async () => {
    const event = await newEvent();
    await ok('/api/events', {
      id: event.id,
      description: 'Summer science',
      dateTime: '2099-07-20T10:30',
      durationMinutes: 120,
      price: 45,
      capacity: 4,
    });
    const { events } = await get('/api/events');
    expect(events.find((e: Json) => e.id === event.id)).toMatchObject({
      dateTime: '2099-07-20T10:30',
      price: 45,
      capacity: 4,
      count: 0,
    });
    const before = await countEvents();
    const bad = await post('/api/events', { description: '', dateTime: '2099-02-30T10:00', price: -1, capacity: 0 });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.fields).toMatchObject({
      description: 'Description is required',
      dateTime: 'Enter a real date and time',
      durationMinutes: 'Duration is required',
      price: 'Price cannot be negative',
      capacity: 'Capacity must be at least 1',
    });
    expect((await post('/api/events', { description: 'x' }, partner)).statusCode).toBe(403);
    expect(await countEvents()).toBe(before);
  });

  it('never books more children than the capacity when parents book at once; the rest wait', async () => {
    const event = await newEvent({ capacity: 3 });
    // Every booking starts together: the event's stream and its expected revision decide which hold places.
    const asked = await Promise.all(Array.from({ length: 8 }, (_, i) => request(event.id, `race${i}@example.com`)));
    expect(asked.map((a) => a.json().registration.held).sort()).toEqual([
      ...Array(5).fill(false),
      ...Array(3).fill(true),
    ]);
    const answers = [];
    for (let i = 0; i < 8; i++) answers.push(await confirm(await confirmationToken(`race${i}@example.com`)));
    expect(answers.map((a) => a.statusCode)).toEqual(Array(8).fill(200));
    const statuses = answers.map((a) => a.json().registration.status).sort();
    expect(statuses).toEqual([...Array(3).fill('registered'), ...Array(5).fill('waitlisted')]);
    const { event: seen, registrations } = await get(`/api/events/registrations/${event.id}`);
    expect(seen).toMatchObject({ count: 3, placesLeft: 0, waitlisted: 5 });
    expect(registrations).toHaveLength(8);
    const booked = answers.find((a) => a.json().registration.status === 'registered')!.json().registration.id;
    const waiting = registrations.find((r: Json) => r.status === 'waitlisted');
    // E-mails follow from the events (the mail reactor).
    await reactorsSettled(db);
    expect(mailsTo(waiting.contact.email)[0]?.raw).toContain('waiting list');
    // A place comes free: the first on the waiting list is given it and told.
    const bookedRow = registrations.find((r: Json) => r.id === booked);
    await ok('/api/events/delete', { eventId: event.id, registrationId: booked });
    expect((await get(`/api/events/registrations/${event.id}/${booked}`)).registration.deleted).toBe(true);
    await ok('/api/events/place', { eventId: event.id, registrationId: waiting.id });
    // E-mails follow from the events (the mail reactor).
    await reactorsSettled(db);
    expect(mailsTo(waiting.contact.email).at(-1)?.raw).toContain('a place came free');
    expect(bookedRow.contact.email).toMatch(/race\d@example.com/);
  });

  it('a public booking needs no login, is e-mailed, is linked to the family of its e-mail, and keeps allergies from partners', async () => {
    const { client } = await ok('/api/clients/contact', {
      firstName: 'Pat',
      lastName: 'Known',
      address: ['2 Broad Street'],
      postcode: 'OX1 3AZ',
      email: 'pat.known@example.com',
      phone: [{ type: 'Mobile', number: '07700 900111' }],
    });
    const event = await newEvent();
    const booked = await book(event.id, 'Pat.Known@example.com');
    expect(booked.statusCode).toBe(200);
    const { id } = booked.json().registration;
    const { registration } = await get(`/api/events/registrations/${event.id}/${id}`);
    expect(registration).toMatchObject({ clientId: client.id, status: 'registered' });
    expect(registration.children[0].allergies).toBe('Peanuts');
    // E-mails follow from the events (the mail reactor).
    await reactorsSettled(db);
    expect(mailsTo('Pat.Known@example.com')[0]?.raw).toContain('Summer science');
    // The same booking sent again (its command id) is the same registration, e-mailed once to
    // confirm it and once confirmed.
    const commandId = randomUUID();
    const first = await book(event.id, 'again@example.com', { commandId });
    const again = await book(event.id, 'again@example.com', { commandId });
    expect(again.json().registration).toEqual(first.json().registration);
    // E-mails follow from the events (the mail reactor).
    await reactorsSettled(db);
    expect(mailsTo('again@example.com')).toHaveLength(2);
    const denied = await fetch(`${product.url}/api/events/registrations/${event.id}/${id}`, {
      headers: { authorization: `Bearer ${partner}` },
    });
    expect(denied.status).toBe(403);
    // The personal fields are sealed in the event store.
    const stored = await db.query(
      `select data::text as data from es.events where event_type = 'WorkshopRegistrationMade'`,
    );
    expect(stored.rows.map((row) => row.data).join()).not.toContain('Peanuts');
    // Its workshop account's stream is named by a random id, nothing derived from the address;
    // the only link from the address to it is a lookup row, which the family's erasure deletes.
    const digest = createHash('sha256').update('pat.known@example.com').digest('hex').slice(0, 32);
    const account = await db.query('select account_id, subject from command.workshop_accounts where email = $1', [
      'pat.known@example.com',
    ]);
    expect(account.rows).toEqual([{ account_id: expect.stringMatching(/^[0-9a-f]{32}$/), subject: client.id }]);
    expect(account.rows[0].account_id).not.toBe(digest);
    // Once the family is erased its booking reads as erased; the places and the money stay.
    await ok(`/api/clients/erase/${client.id}`, { reason: 'Asked by the family', confirm: true });
    const erased = (await get(`/api/events/registrations/${event.id}/${id}`)).registration;
    expect(erased).toMatchObject({ contact: { firstName: 'Erased', email: 'Erased' }, children: [], price: 40 });
    expect((await db.query('select 1 from command.workshop_accounts where subject = $1', [client.id])).rowCount).toBe(
      0,
    );
  });

  it('a public booking holds its places only until its address confirms it, links to no family and mails none of the booker’s words; unconfirmed, it lapses, its details are destroyed and the waiting list moves up', async () => {
    const { client } = await ok('/api/clients/contact', {
      firstName: 'Hilda',
      lastName: 'Held',
      address: ['3 Broad Street'],
      postcode: 'OX1 3AZ',
      email: 'hilda.held@example.com',
      phone: [{ type: 'Mobile', number: '07700 900112' }],
    });
    const event = await newEvent({ capacity: 2 });
    // A stranger types the family's address, in other letters, with words of their own.
    const asked = await request(event.id, 'Hilda.HELD@example.com', {
      contact: { ...parent('Hilda.HELD@example.com').contact, firstName: 'Your account is overdue' },
      children: [
        { firstName: 'Ann', lastName: 'Lee', school: '', schoolYear: '', allergies: '' },
        { firstName: 'Bo', lastName: 'Lee', school: '', schoolYear: '', allergies: '' },
      ],
      comments: 'Pay now at https://pay.evil.example',
    });
    expect(asked.json().registration).toMatchObject({ status: 'requested', held: true });
    const registrationId = asked.json().registration.id;
    const open = await (await fetch(`${product.url}/api/public/events`)).json();
    expect(open.events.find((e: Json) => e.id === event.id)).toMatchObject({ placesLeft: 0 });
    // Nothing reaches the family: not its file, not its invoice draft.
    const row = await db.query('select client_id, status from read.workshop_registrations where id = $1', [
      registrationId,
    ]);
    expect(row.rows).toEqual([{ client_id: null, status: 'requested' }]);
    // The admin's screens show its places held, awaiting the confirmation: taken, but nobody's yet.
    const counts = async () => (await get(`/api/events/registrations/${event.id}`)).event;
    expect(await counts()).toMatchObject({ placesHeld: 2, placesTaken: 2, count: 0, waitlistRequests: 0 });
    expect((await ok('/api/events/createInvoice', { email: 'hilda.held@example.com' })).registrations).toEqual([]);
    expect(JSON.stringify(await get(`/api/clients/${client.id}`))).not.toContain(registrationId);
    // Its mail asks to confirm and names only the children's first names.
    const token = await confirmationToken('Hilda.HELD@example.com');
    const mail = mailsTo('Hilda.HELD@example.com').at(-1)!.raw;
    expect(mail).toContain('Ann, Bo');
    expect(mail).not.toMatch(/overdue|evil\.example|Dear/);
    // Meanwhile another parent asks to join the waiting list, then confirms.
    expect((await request(event.id, 'waiter@example.com')).statusCode).toBe(200);
    expect(await counts()).toMatchObject({ placesHeld: 2, waitlistRequests: 1, waitlisted: 0 });
    const waiting = (await confirm(await confirmationToken('waiter@example.com'))).json().registration;
    expect(waiting.status).toBe('waitlisted');
    expect(await counts()).toMatchObject({ placesHeld: 2, waitlistRequests: 0, waitlisted: 1 });

    shift = (LIMITS.bookingHoldMinutes + 1) * 60_000;
    try {
      const late = await confirm(token);
      expect(late.statusCode).toBe(409);
      expect(late.json().error.message).toMatch(/lapsed/);
      expect(await product.command.chores.lapseDueBookings()).toBeGreaterThan(0);
      await reactorsSettled(db);
      const { registrations } = await get(`/api/events/registrations/${event.id}`);
      expect(registrations.find((r: Json) => r.id === waiting.id)).toMatchObject({ status: 'registered' });
      expect(await counts()).toMatchObject({ placesHeld: 0, waitlistRequests: 0, placesTaken: 1, count: 1 });
      expect(mailsTo('waiter@example.com').at(-1)?.raw).toContain('a place came free');
      const lapsed = await db.query('select status, contact, children from read.workshop_registrations where id = $1', [
        registrationId,
      ]);
      expect(lapsed.rows[0]).toMatchObject({ status: 'lapsed', contact: { email: 'Erased' }, children: [] });
      const key = await db.query('select key from pii.subject_keys where subject_id = $1', [
        `registration:${registrationId}`,
      ]);
      expect(key.rows).toEqual([{ key: null }]);
      // The link is of no use any more.
      expect((await confirm(token)).statusCode).toBe(404);
    } finally {
      shift = 0;
    }
  });

  it('refuses a bad booking with the contact form messages, answers a honeypot with nothing written, and limits an address', async () => {
    const event = await newEvent({ capacity: 50 });
    const before = await countEvents();
    const bad = await post(
      `/api/public/events/${event.id}/registrations`,
      { contact: { firstName: '', address: [''], email: 'a@b, c@d' }, children: [] },
      null,
    );
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.fields).toMatchObject({
      'contact.firstName': 'First name is required',
      'contact.address': 'Address is required',
      'contact.phone': 'Phone is required',
      children: 'Add at least one child',
    });
    expect((await request(event.id, 'bot@example.com', { website: 'http://spam' })).statusCode).toBe(200);
    // One booking takes at most six children's places; ten are refused with nothing written.
    const child = parent('x@example.com').children[0];
    const ten = await request(event.id, 'ten@example.com', { children: Array(10).fill(child) });
    expect(ten.statusCode).toBe(400);
    expect(ten.json().error.fields).toMatchObject({ children: 'At most 6 children in one booking' });
    expect(await countEvents()).toBe(before);
    // Fifteen bookings of one address sent at once, each from its own client address: five get in.
    const burst = await Promise.all(
      Array.from({ length: 15 }, (_, i) => request(event.id, 'burst@example.com', {}, `10.7.0.${i + 1}`)),
    );
    const codes = burst.map((answer) => answer.statusCode);
    expect(codes.filter((code) => code === 200)).toHaveLength(LIMITS.maxBookingsPerEmailAnHour);
    expect(codes.filter((code) => code === 429)).toHaveLength(15 - LIMITS.maxBookingsPerEmailAnHour);
    // Five an hour per e-mail address, whatever the client address; twenty per client address.
    const perEmail = [];
    for (let i = 0; i < 6; i++) perEmail.push((await request(event.id, 'eager@example.com')).statusCode);
    expect(perEmail).toEqual([200, 200, 200, 200, 200, 429]);
    const perAddress = [];
    for (let i = 0; i < 21; i++)
      perAddress.push((await request(event.id, `busy${i}@example.com`, {}, '10.9.9.9')).statusCode);
    expect(perAddress).toEqual([...Array(20).fill(200), 429]);
  });

  it('issues a workshop invoice with a discount as a family invoice (PDF e-mailed); a registration is invoiced once', async () => {
    const first = await newEvent({ description: 'Easter art', price: 30, capacity: 10 });
    const second = await newEvent({ description: 'Easter drama', price: 25, capacity: 10 });
    const email = 'billing@example.com';
    const one = (await book(first.id, email)).json().registration.id;
    const two = (
      await book(second.id, email, { children: [parent(email).children[0], { firstName: 'Bo', lastName: 'Lee' }] })
    ).json().registration.id;
    const stranger = (await book(first.id, 'stranger@example.com')).json().registration.id;
    const draft = await ok('/api/events/createInvoice', { email });
    expect(draft.registrations.map((r: Json) => [r.id, r.price, r.included])).toEqual([
      [one, 30, true],
      [two, 50, true],
    ]);
    expect(draft.total).toBe(80);
    const before = await countEvents();
    const tooMuch = await post('/api/events/confirmInvoice', { registrationIds: [one, two], discountAmount: 81 });
    expect(tooMuch.statusCode).toBe(400);
    expect(tooMuch.json().error.fields.discountAmount).toMatch(/cannot be more than £80.00/);
    const mixed = await post('/api/events/confirmInvoice', { registrationIds: [one, stranger], discountAmount: 0 });
    expect(mixed.statusCode).toBe(400);
    expect(await countEvents()).toBe(before);
    // Two confirms of the same registrations at once: one invoice only.
    const racing = await Promise.all(
      [1, 2].map(() => post('/api/events/confirmInvoice', { registrationIds: [one, two], discountAmount: 10 })),
    );
    expect(racing.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    const { invoice } = racing.find((r) => r.statusCode === 200)!.json();
    expect(invoice).toMatchObject({ total: 70, discount: 10 });
    // E-mails follow from the events (the mail reactor).
    await reactorsSettled(db);
    const text = pdfText(attachedPdf(mailsTo(email).find((m) => m.raw.includes('application/pdf'))!.raw));
    expect(text).toContain('Easter art, 20 Jul 2099 10:00 (1 child)');
    expect(text).toContain('Easter drama, 20 Jul 2099 10:00 (2 children)');
    expect(text).toContain('Discount');
    expect(text).toContain('£70.00');
    const { registration } = await get(`/api/events/registrations/${first.id}/${one}`);
    expect(registration.invoiceRef).toBe(invoice.reference);
    expect((await post('/api/events/confirmInvoice', { registrationIds: [one], discountAmount: 0 })).statusCode).toBe(
      409,
    );
  });

  it('a booking too big for the places left waits whole and is told so, and is refused on an invoice (409) with nothing written', async () => {
    const event = await newEvent({ description: 'Kite making', capacity: 2 });
    const email = 'three@example.com';
    const child = parent(email).children[0];
    const asked = await request(event.id, email, { children: [child, child, child] });
    expect(asked.json().registration).toMatchObject({ status: 'requested', held: false, places: 3, placesLeft: 2 });
    const token = await confirmationToken(email);
    const asking = mailsTo(email)
      .at(-1)!
      .raw.replace(/=\r?\n/g, '');
    expect(asking).toContain('Only 2 places are left, and a booking takes places for all its children or none');
    expect(asking).not.toContain('is full');
    const confirmed = await confirm(token);
    expect(confirmed.json()).toMatchObject({
      registration: { status: 'waitlisted', places: 3 },
      event: { placesLeft: 2 },
    });
    const id = confirmed.json().registration.id;
    await reactorsSettled(db);
    expect(
      mailsTo(email)
        .at(-1)!
        .raw.replace(/=\r?\n/g, ''),
    ).toContain('Only 2 places were left at Kite making on 20 Jul 2099 10:00');
    // Not in the draft, and refused if sent anyway: a waiting list has no place to pay for.
    expect((await ok('/api/events/createInvoice', { email })).registrations).toEqual([]);
    const before = await countEvents();
    const refused = await post('/api/events/confirmInvoice', { registrationIds: [id], discountAmount: 0 });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.fields).toEqual({ registrationIds: 'On the waiting list' });
    expect(refused.json().error.message).toMatch(
      /waiting list of Kite making: only bookings with a place are invoiced/,
    );
    expect(await countEvents()).toBe(before);
  });

  it('moves keep the invoice unless its price would change; delete and cancel credit what was invoiced and tell the parents', async () => {
    const from = await newEvent({ description: 'Maths club', price: 20, capacity: 5 });
    const same = await newEvent({ description: 'Maths club (Tuesday)', price: 20, capacity: 5 });
    const dearer = await newEvent({ description: 'Maths camp', price: 60, capacity: 5 });
    const email = 'mover@example.com';
    const id = (await book(from.id, email)).json().registration.id;
    const { invoice } = await ok('/api/events/confirmInvoice', { registrationIds: [id], discountAmount: 0 });
    const { events: alternatives } = await get(`/api/events/alternatives/${from.id}`);
    expect(alternatives.map((e: Json) => e.id)).toEqual(expect.arrayContaining([same.id, dearer.id]));
    const refused = await post('/api/events/move', { fromEventId: from.id, registrationId: id, toEventId: dearer.id });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.message).toMatch(/invoiced at £20.00/);
    await ok('/api/events/move', { fromEventId: from.id, registrationId: id, toEventId: same.id });
    const moved = await get(`/api/events/registrations/${same.id}/${id}`);
    expect(moved.registration.invoiceRef).toBe(invoice.reference);
    // Cancelling the event credits the invoice and e-mails the parent.
    await ok('/api/events/cancel', { id: same.id });
    const credit = await db.query(
      'select credit_note_reference, credit_reason from read.family_invoices where id = $1',
      [invoice.id],
    );
    expect(credit.rows[0]).toMatchObject({ credit_reason: 'cancelled' });
    // E-mails follow from the events (the mail reactor).
    await reactorsSettled(db);
    expect(mailsTo(email).some((m) => m.raw.includes('has been cancelled'))).toBe(true);
    expect(mailsTo(email).some((m) => m.raw.includes(credit.rows[0].credit_note_reference))).toBe(true);
  });

  it('reports upcoming events with their registrations, for admins only', async () => {
    const event = await newEvent({ description: 'Report day', dateTime: '2099-08-01T09:00' });
    await book(event.id, 'report@example.com');
    const { groups } = await get('/api/reports/workshops?from=2099-08-01&to=2099-08-01');
    expect(groups).toHaveLength(1);
    expect(groups[0].registrations[0].children[0]).toMatchObject({ firstName: 'Ann', allergies: 'Peanuts' });
    const refused = await fetch(`${product.url}/api/reports/workshops`, {
      headers: { authorization: `Bearer ${partner}` },
    });
    expect(refused.status).toBe(403);
    const open = await (await fetch(`${product.url}/api/public/events`)).json();
    expect(open.events.find((e: Json) => e.id === event.id)).toMatchObject({ placesLeft: 2 });
    expect(JSON.stringify(open)).not.toContain('report@example.com');
    // The agency as the public may see it: its name and the address for questions about data, nothing else.
    const agency = await get('/api/agency');
    expect(open.agency).toEqual({ name: agency.name, email: agency.email });
  });
});
