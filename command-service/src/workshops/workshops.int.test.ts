import { randomUUID } from 'node:crypto';
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
  /** A parent's booking, from an address of its own unless one is named (the limits count per address). */
  const book = (eventId: string, email: string, over: Json = {}, remoteAddress = `10.0.0.${++parents}`) =>
    product.command.app.inject({
      method: 'POST',
      url: `/api/public/events/${eventId}/registrations`,
      payload: { commandId: randomUUID(), ...parent(email, over) },
      remoteAddress,
    });
  const mailsTo = (email: string) => smtp.inbox.filter((mail) => mail.to.includes(email));

  beforeAll(async () => {
    smtp = await startLoopbackSmtp();
    product = await startTestProduct({ smtpUrl: smtp.url });
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
    // Every booking starts together: the event's stream and its expected revision decide.
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => book(event.id, `race${i}@example.com`)));
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
    // The same booking sent again (its command id) is the same registration, e-mailed once.
    const commandId = randomUUID();
    const first = await book(event.id, 'again@example.com', { commandId });
    const again = await book(event.id, 'again@example.com', { commandId });
    expect(again.json().registration).toEqual(first.json().registration);
    // E-mails follow from the events (the mail reactor).
    await reactorsSettled(db);
    expect(mailsTo('again@example.com')).toHaveLength(1);
    const denied = await fetch(`${product.url}/api/events/registrations/${event.id}/${id}`, {
      headers: { authorization: `Bearer ${partner}` },
    });
    expect(denied.status).toBe(403);
    // The personal fields are sealed in the event store.
    const stored = await db.query(
      `select data::text as data from es.events where event_type = 'WorkshopRegistrationMade'`,
    );
    expect(stored.rows.map((row) => row.data).join()).not.toContain('Peanuts');
    // Once the family is erased its booking reads as erased; the places and the money stay.
    await ok(`/api/clients/erase/${client.id}`, { reason: 'Asked by the family', confirm: true });
    const erased = (await get(`/api/events/registrations/${event.id}/${id}`)).registration;
    expect(erased).toMatchObject({ contact: { firstName: 'Erased', email: 'Erased' }, children: [], price: 40 });
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
    expect((await book(event.id, 'bot@example.com', { website: 'http://spam' })).statusCode).toBe(200);
    expect(await countEvents()).toBe(before);
    // Five an hour per e-mail address, whatever the client address; twenty per client address.
    const perEmail = [];
    for (let i = 0; i < 6; i++) perEmail.push((await book(event.id, 'eager@example.com')).statusCode);
    expect(perEmail).toEqual([200, 200, 200, 200, 200, 429]);
    const perAddress = [];
    for (let i = 0; i < 21; i++)
      perAddress.push((await book(event.id, `busy${i}@example.com`, {}, '10.9.9.9')).statusCode);
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
  });
});
