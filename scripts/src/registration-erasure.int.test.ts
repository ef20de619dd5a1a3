import { randomUUID } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unzipSync } from 'fflate';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startProduct } from './product';
import { dumpDatabase, readModels, rebuildAsAFreshProcess } from './testing/database-dump';
import { pdfText } from './testing/pdf-text';
import { startTestProduct, TEST_ADMIN, type TestProduct } from './testing/test-product';
import { contact, testRequests } from './testing/test-requests';

type Json = Record<string, unknown>;

/**
 * The erasure of a public workshop booking of no known family, its own data subject
 * (`registration:{id}`): an admin exports everything held about it, then erases it with a reason;
 * afterwards none of the parent's or the children's details is anywhere in the database or the
 * outbox, its invoice's money stays, a rebuild matches, and the erasure screen's retention period
 * is the server's (RETENTION_YEARS, 7 here) rather than a constant.
 */
describe('a workshop booking of no known family: export and erasure', () => {
  let product: TestProduct;
  let db: pg.Pool;
  let admin = '';
  let partner = '';
  let eventId = '';
  let registrationId = '';
  let invoice: { id: string; reference: string };
  const { post, ok, get } = testRequests(
    () => product,
    () => admin,
  );
  const tag = `${Date.now() % 100000}`;
  const booking = {
    contact: {
      firstName: 'Quillon',
      lastName: `Zabriskie${tag}`,
      address: ['17 Larkspur Mews', 'Abingdon'],
      postcode: 'OX14 9QZ',
      email: `quillon.zabriskie${tag}@example.com`,
      phone: '07700 912345',
    },
    children: [
      {
        firstName: 'Wilhelmina',
        lastName: `Zabriskie${tag}`,
        school: 'Larkspur Primary',
        schoolYear: '4',
        allergies: 'Sesame seeds',
      },
    ],
    comments: 'Collected by grandmother Ottoline',
  };
  const personal = [
    ...Object.values(booking.contact).flat(),
    ...Object.values(booking.children[0]!).filter((value) => value.length > 3),
    booking.comments,
  ];
  // Booked by an admin on the parent's behalf: linked at once to a family of that address, if any.
  const book = async (eventId: string, body: Json) =>
    (await ok('/api/events/register', { eventId, comments: '', ...body })).registration.id as string;
  const download = (id: string, token = admin) =>
    fetch(`${product.url}/api/workshops/registrations/${id}/export`, { headers: { authorization: `Bearer ${token}` } });
  const countEvents = async () => Number((await db.query('select count(*) from es.events')).rows[0].count);
  const outbox = () => {
    const dir = join(product.dataDir, 'outbox');
    return existsSync(dir)
      ? readdirSync(dir)
          .map((file) => readFileSync(join(dir, file), 'utf8'))
          .join('\n')
      : '';
  };

  beforeAll(async () => {
    const before = process.env.RETENTION_YEARS;
    process.env.RETENTION_YEARS = '7';
    try {
      product = await startTestProduct();
    } finally {
      if (before === undefined) delete process.env.RETENTION_YEARS;
      else process.env.RETENTION_YEARS = before;
    }
    db = new pg.Pool({ connectionString: product.databaseUrl });
    admin = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
    partner = await product.command.signSession({ id: 'u-p', username: 'pp', role: 'partner', tutorId: 't-2' });
    const { event } = await ok('/api/events', {
      description: 'Summer robotics',
      dateTime: '2099-07-21T10:00',
      durationMinutes: 180,
      price: 40,
      capacity: 10,
      location: 'Village hall',
    });
    eventId = event.id;
    registrationId = await book(eventId, booking);
    // Someone else's booking, which stays whole.
    await book(eventId, {
      ...booking,
      contact: { ...contact('Petra', `Other${tag}`), phone: '07700 900002' },
      children: [{ firstName: 'Sam', lastName: `Other${tag}`, school: '', schoolYear: '', allergies: '' }],
      comments: '',
    });
    const draft = await ok('/api/events/createInvoice', { email: booking.contact.email });
    expect(draft.registrations.map((r: { id: string }) => r.id)).toEqual([registrationId]);
    ({ invoice } = await ok('/api/events/confirmInvoice', { registrationIds: [registrationId], discountAmount: 0 }));
    await ok('/api/family-invoices/payment', { invoiceId: invoice.id, date: '2026-03-02', amount: '15.00' });
  });
  afterAll(async () => {
    await db?.end();
    await product?.dispose();
  });

  it('exports everything held about the booking, to admins only', async () => {
    const response = await download(registrationId);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-disposition')).toContain(`booking-${registrationId}-export.zip`);
    const files = unzipSync(new Uint8Array(await response.arrayBuffer()));
    expect(Object.keys(files).sort()).toEqual(['export.json', 'summary.pdf']);
    const text = Buffer.from(files['export.json']!).toString('utf8');
    for (const value of personal) expect(text, value).toContain(JSON.stringify(value));
    const archive = JSON.parse(text);
    expect(archive.invoices.map((i: Json) => i.reference)).toEqual([invoice.reference]);
    expect(archive.payments.map((p: Json) => p.amount)).toEqual([15]);
    expect(archive.workshopBookings.map((b: Json) => b.event)).toEqual(['Summer robotics']);
    // The history told to the booking's subject: by role, never by a member of staff's name or id.
    expect(archive.history).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ what: expect.stringMatching(/^Booked on Summer robotics /) }),
        { by: 'the agency', when: expect.any(String), what: expect.stringContaining(`Invoice ${invoice.reference}`) },
      ]),
    );
    // Of the event's stream, only what is about this booking: not the other parent's.
    expect(text).not.toContain(`Other${tag}`);
    const summary = pdfText(files['summary.pdf']!);
    expect(summary).toContain(booking.contact.email);
    expect(summary).toContain('Wilhelmina');

    expect((await download(registrationId, partner)).status).toBe(403);
    expect((await download('no-such-booking')).status).toBe(404);
    expect((await download(registrationId, 'not-a-token')).status).toBe(401);
  });

  it('tells the erasure screens the retention period the server keeps', async () => {
    const { status, body } = await get('/api/agency');
    expect(status).toBe(200);
    expect(body.retentionYears).toBe(7);
  });

  it('refuses non-admins, bad input, unknown bookings and a family’s booking, writing nothing', async () => {
    const family = await ok('/api/clients/contact', contact('Linus', `Family${tag}`));
    const linked = await book(eventId, {
      contact: { ...contact('Linus', `Family${tag}`), phone: '07700 900003' },
      children: [{ firstName: 'Ada', lastName: `Family${tag}`, school: '', schoolYear: '', allergies: '' }],
    });
    const before = await countEvents();
    const erase = (id: string, body: Json, token = admin) =>
      post(`/api/workshops/registrations/erase/${id}`, body, token);
    expect((await erase(registrationId, { reason: 'Asked', confirm: true }, partner)).statusCode).toBe(403);
    const unconfirmed = await erase(registrationId, { reason: 'Asked' });
    expect(unconfirmed.statusCode).toBe(400);
    expect(unconfirmed.json().error).toMatchObject({
      code: expect.any(String),
      fields: { confirm: expect.any(String) },
    });
    const blank = await erase(registrationId, { reason: ' ', confirm: true });
    expect(blank.statusCode).toBe(400);
    expect(blank.json().error.fields).toMatchObject({ reason: 'Reason is required' });
    expect((await erase('no-such-booking', { reason: 'Asked', confirm: true })).statusCode).toBe(404);
    const familys = await erase(linked, { reason: 'Asked', confirm: true });
    expect(familys.statusCode, familys.body).toBe(409);
    expect(familys.json().error.message).toContain('Erase the family');
    expect(family.client.id).toEqual(expect.any(String));
    expect(await countEvents()).toBe(before);
    expect(
      await db.query('select 1 from pii.subject_keys where subject_id = $1 and key is null', [
        `registration:${registrationId}`,
      ]),
    ).toMatchObject({ rowCount: 0 });
  });

  it('erases the booking: its details nowhere afterwards, its money whole, and a rebuild matches', async () => {
    const before = await dumpDatabase(db);
    for (const value of personal) expect(before, `${value} is held before the erasure`).toContain(value);
    expect(outbox()).toContain(booking.contact.email);
    const money = async () =>
      (await db.query('select id, reference, total_pence, paid_pence from read.family_invoices order by id')).rows;
    const moneyBefore = await money();

    const erased = await post(`/api/workshops/registrations/erase/${registrationId}`, {
      reason: 'Asked by the parent (phone call of 2 March)',
      confirm: true,
    });
    expect(erased.statusCode, erased.body).toBe(200);
    const answer = erased.json();
    expect(answer).toMatchObject({ registration: { id: registrationId, erased: true }, visible: true });
    // The billing details of the booking's invoice are kept for accounting: 7 years from its date.
    const issued = (
      await db.query("select to_char(date, 'YYYY-MM-DD') as d from read.family_invoices where id = $1", [invoice.id])
    ).rows[0].d as string;
    expect(answer.kept.billingDetailsUntil).toBe(`${Number(issued.slice(0, 4)) + 7}${issued.slice(4)}`);

    const after = await dumpDatabase(db);
    const mail = outbox();
    for (const value of personal) {
      expect(after, `${value} in the database after the erasure`).not.toContain(value);
      expect(mail, `${value} in the outbox after the erasure`).not.toContain(value);
    }
    expect(after).toContain('Asked by the parent (phone call of 2 March)');
    expect(after).toContain(`Other${tag}`);
    expect(await money()).toEqual(moneyBefore);

    const { body } = await get(`/api/events/registrations/${eventId}/${registrationId}`);
    expect(body.registration.contact).toMatchObject({ firstName: 'Erased', lastName: 'Erased', email: 'Erased' });
    expect(body.registration.children).toEqual([]);
    expect(body.registration.invoiceRef).toBe(invoice.reference);
    // Again: the same answer, nothing new; and the export now says "Erased".
    expect(
      (await post(`/api/workshops/registrations/erase/${registrationId}`, { reason: 'Again', confirm: true }))
        .statusCode,
    ).toBe(200);
    const exported = Buffer.from(
      unzipSync(new Uint8Array(await (await download(registrationId)).arrayBuffer()))['export.json']!,
    ).toString('utf8');
    expect(exported).toContain('"Erased"');
    for (const value of personal) expect(exported).not.toContain(value);

    const live = await readModels(db);
    await rebuildAsAFreshProcess(product, db);
    expect(await readModels(db)).toEqual(live);
  });

  it('erased through another instance, the booking’s mail leaves this instance’s outbox too', async () => {
    // A second instance on the same database with a DATA_DIR (and so an outbox) of its own; the
    // instances share their secrets, as compose's .env gives them.
    const otherDir = mkdtempSync(join(tmpdir(), 'agency-other-instance-'));
    copyFileSync(join(product.dataDir, 'personal-data-key'), join(otherDir, 'personal-data-key'));
    const other = await startProduct(
      {
        port: 0,
        host: '127.0.0.1',
        dataDir: otherDir,
        databaseUrl: product.databaseUrl,
        adminUsername: TEST_ADMIN.username,
        jwtSecret: 'test-secret-test-secret-test-secret',
        timeZone: 'Europe/London',
        publicUrl: 'http://localhost',
        mailFrom: 'Tutoring Agency <no-reply@localhost>',
        demoData: false,
      },
      { log: () => {}, logLevel: 'silent' },
    );
    try {
      expect(other.leadership.isLeader).toBe(false);
      const email = `twin.instance${tag}@example.com`;
      const booked = await book(eventId, {
        ...booking,
        contact: { ...contact('Twin', `Instance${tag}`), email, phone: '07700 900004' },
        children: [{ firstName: 'Tia', lastName: `Instance${tag}`, school: '', schoolYear: '', allergies: '' }],
        comments: '',
      });
      // The leader (this instance) runs the mail reactor: the booking's mail is in its outbox.
      await vi.waitFor(() => expect(outbox()).toContain(email), { timeout: 60_000 });

      const erased = await other.command.app.inject({
        method: 'POST',
        url: `/api/workshops/registrations/erase/${booked}`,
        headers: { authorization: `Bearer ${admin}` },
        payload: { commandId: randomUUID(), reason: 'Asked by the parent', confirm: true },
      });
      expect(erased.statusCode, erased.body).toBe(200);
      await vi.waitFor(() => expect(outbox()).not.toContain(email), { timeout: 60_000 });
    } finally {
      await other.stop();
      rmSync(otherDir, { recursive: true, force: true });
    }
  });
});
