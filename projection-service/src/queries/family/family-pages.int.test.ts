import { randomUUID } from 'node:crypto';
import { startTestProduct, TEST_ADMIN, type TestProduct } from '@agency/scripts/testing/test-product';
import { contact, testRequests } from '@agency/scripts/testing/test-requests';
import { strFromU8, unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * What a family's login sees (docs/family-access.md): only its own family, by the session's
 * family, never a rate, commission, partner share or tutor's pay; another family's ids are 404.
 */
describe("a family's own pages (real PostgreSQL)", () => {
  let product: TestProduct;
  let admin = '';
  const { ok } = testRequests(
    () => product,
    () => admin,
  );
  const a = { clientId: '', contactId: '', childId: '', invoiceId: '', token: '' };
  const b = { clientId: '', contactId: '', childId: '', invoiceId: '', token: '' };
  let eventId = '';

  const get = (url: string, token: string) =>
    fetch(`${product.url}${url}`, { headers: { authorization: `Bearer ${token}` } });
  const book = (token: string, body: object) =>
    product.command.app.inject({
      method: 'POST',
      url: '/api/family/bookings',
      payload: { commandId: randomUUID(), ...body },
      headers: { authorization: `Bearer ${token}` },
    });

  const family = async (into: typeof a, first: string, last: string, tutorId: string) => {
    const made = await ok('/api/clients/contact', contact(first, last));
    into.clientId = made.client.id;
    into.contactId = made.contact.id;
    const { child } = await ok(`/api/clients/child/${into.clientId}`, {
      firstName: `${first}kid`,
      lastName: last,
      dob: '2014-02-02',
    });
    into.childId = child.id;
    const { engagement } = await ok('/api/tutors/engagement', {
      tutorId,
      studentId: child.id,
      rate: 37,
      commissionPct: 23,
      partnerPct: 11,
      startDate: '2025-01-06',
      subjects: ['Maths'],
    });
    await ok(`/api/lessons/lesson?from=2025-03-10&to=2025-03-16&month=2025-03&tutorId=${tutorId}`, {
      tutorId,
      lesson: { engagementId: engagement.id, date: '2025-03-12', duration: 1.5 },
    });
    const { consultation } = await ok('/api/consultations', {
      client: into.clientId,
      child: child.id,
      date: '2025-02-03',
    });
    into.invoiceId = consultation.invoiceId;
    const id = `family-${into.contactId}`;
    into.token = await product.command.signSession({ id, username: id, role: 'family', clientId: into.clientId });
  };

  beforeAll(async () => {
    product = await startTestProduct();
    admin = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
    const { tutor } = await ok('/api/tutors/contact', {
      contact: contact('Tina', 'Pagetutor'),
      tutor: { username: 'tinapages', invoicePrefix: 'TP', startDate: '2024-09-01' },
    });
    await family(a, 'Ann', 'Pagesa', tutor.id);
    await family(b, 'Bob', 'Pagesb', tutor.id);
    const { event } = await ok('/api/events', {
      description: 'Pages workshop',
      dateTime: '2099-07-20T10:00',
      durationMinutes: 60,
      price: 30,
      capacity: 1,
    });
    eventId = event.id;
  });
  afterAll(() => product?.dispose());

  it('shows its lessons by date, child, tutor and length, and no rate, commission or share', async () => {
    const response = await get('/api/family/lessons?year=2025', a.token);
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(JSON.parse(text).lessons).toEqual([
      expect.objectContaining({ date: '2025-03-12', child: 'Annkid Pagesa', tutor: 'Tina Pagetutor', duration: 1.5 }),
    ]);
    const overview = await (await get('/api/family/overview', a.token)).text();
    for (const body of [text, overview]) {
      expect(body).not.toMatch(/commission|partner|rate|"pay"|55\.5|12\.77/i);
      expect(body).not.toContain(b.clientId);
      expect(body).not.toContain('Bobkid');
    }
    expect(JSON.parse(overview).invoices.map((invoice: { id: string }) => invoice.id)).toEqual([a.invoiceId]);
  });

  it('opens its own invoice PDF, and answers 404 for another family’s', async () => {
    const own = await get(`/api/family/invoices/doc/${a.invoiceId}`, a.token);
    expect(own.status).toBe(200);
    expect(own.headers.get('content-type')).toContain('application/pdf');
    expect((await get(`/api/family/invoices/doc/${b.invoiceId}`, a.token)).status).toBe(404);
  });

  it('shows its own contacts and children only', async () => {
    const { family: details } = await (await get('/api/family/details', a.token)).json();
    expect(details.contacts.map((c: { id: string }) => c.id)).toEqual([a.contactId]);
    expect(details.children).toEqual([{ id: a.childId, firstName: 'Annkid', lastName: 'Pagesa' }]);
  });

  it('books a workshop as itself for its own children, confirmed or on the waiting list, never for another’s child', async () => {
    expect((await book(a.token, { eventId, childIds: [b.childId] })).statusCode).toBe(404);
    const first = await book(a.token, { eventId, childIds: [a.childId] });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().booking.state).toBe('confirmed');
    const second = await book(b.token, { eventId, childIds: [b.childId] });
    expect(second.json().booking.state).toBe('waiting list');
    const bookings = await (await get('/api/family/bookings', a.token)).json();
    expect(bookings.bookings).toEqual([
      expect.objectContaining({ eventId, description: 'Pages workshop', children: ['Annkid'], state: 'confirmed' }),
    ]);
    const theirs = await (await get('/api/family/bookings', b.token)).json();
    expect(theirs.bookings.map((booking: { state: string }) => booking.state)).toEqual(['waiting list']);
  });

  it('gives a family a calendar feed of its confirmed bookings at an address only it has, until revoked', async () => {
    const post = (url: string, token: string) =>
      product.command.app.inject({ method: 'POST', url, payload: {}, headers: { authorization: `Bearer ${token}` } });
    const made = await post('/api/family/calendar-feed', a.token);
    expect(made.statusCode, made.body).toBe(200);
    const path = new URL(made.json().feed.url).pathname;
    const feed = await fetch(`${product.url}${path}`);
    expect(feed.status).toBe(200);
    expect(feed.headers.get('content-type')).toContain('text/calendar');
    const text = await feed.text();
    expect(text).toContain('BEGIN:VCALENDAR\r\n');
    expect(text).toContain('SUMMARY:Pages workshop');
    expect(text).toContain('DTSTART:20990720T100000');
    // Family B is on the waiting list only: its feed holds no event.
    const theirs = new URL((await post('/api/family/calendar-feed', b.token)).json().feed.url).pathname;
    expect(await (await fetch(`${product.url}${theirs}`)).text()).not.toContain('BEGIN:VEVENT');
    // The agency's feed lists the upcoming workshop; only an admin makes one.
    expect((await post('/api/agency/calendar-feed', a.token)).statusCode).toBe(403);
    const agency = new URL((await post('/api/agency/calendar-feed', admin)).json().feed.url).pathname;
    expect(await (await fetch(`${product.url}${agency}`)).text()).toContain('SUMMARY:Pages workshop');
    // Revoked, the address answers nothing; a new feed replaces the old address.
    expect((await post('/api/family/calendar-feed/revoke', a.token)).json().revoked).toBe(1);
    expect((await fetch(`${product.url}${path}`)).status).toBe(404);
    const again = new URL((await post('/api/family/calendar-feed', b.token)).json().feed.url).pathname;
    expect((await fetch(`${product.url}${theirs}`)).status).toBe(404);
    expect((await fetch(`${product.url}${again}`)).status).toBe(200);
  });

  it('downloads its own subject-access export, and nothing of another family or of the agency’s business', async () => {
    const response = await get('/api/family/export', a.token);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/zip');
    const files = unzipSync(new Uint8Array(await response.arrayBuffer()));
    const json = strFromU8(files['export.json'] as Uint8Array);
    const data = JSON.parse(json);
    expect(data.family.id).toBe(a.clientId);
    expect(data.lessons).toEqual([expect.objectContaining({ date: '2025-03-12', child: 'Annkid Pagesa', hours: 1.5 })]);
    expect(json).not.toMatch(/commission|partner|Bobkid|55\.5/i);
    expect(json).not.toContain(b.clientId);
    expect(files['summary.pdf']).toBeDefined();
  });

  it('asks for erasure once; an admin decides it once, and sees it asked', async () => {
    const post = (url: string, token: string, body: object = {}) =>
      product.command.app.inject({
        method: 'POST',
        url,
        payload: { commandId: randomUUID(), ...body },
        headers: { authorization: `Bearer ${token}` },
      });
    const asked = await post('/api/family/erasure-request', b.token);
    expect(asked.statusCode, asked.body).toBe(200);
    expect(asked.json().erasureRequest).toEqual({ clientId: b.clientId, state: 'pending' });
    const access = await (await get(`/api/clients/${b.clientId}/family-access`, admin)).json();
    expect(access.erasureRequest).toBe('pending');
    const decision = `/api/clients/erasure-request/decide/${b.clientId}`;
    expect((await post(decision, admin, { approve: false })).json().erasureRequest.state).toBe('declined');
    expect((await post(decision, admin, { approve: true })).statusCode).toBe(409);
    expect((await post(decision, b.token, { approve: true })).statusCode).toBe(403);
  });

  it('is for families: staff are refused the family pages', async () => {
    expect((await get('/api/family/overview', admin)).status).toBe(403);
  });
});
