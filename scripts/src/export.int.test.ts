import type { FamilyDataExport } from '@agency/contracts';
import { displayDate } from '@agency/domain';
import { unzipSync } from 'fflate';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { seedDemoData } from './demo-data';
import { pdfText } from './testing/pdf-text';
import { reactorsSettled } from './testing/reactors-settled';
import { startTestProduct, TEST_ADMIN, type TestProduct } from './testing/test-product';

type Contact = {
  firstName: string;
  lastName: string;
  address: string[];
  postcode: string;
  email: string;
  phone: { number: string }[];
};
type Family = { contacts: Contact[]; children: { id: string; firstName: string; lastName: string }[] };

/**
 * The subject-access export: an admin's GET /api/clients/{id}/export answers a zip with
 * export.json and summary.pdf, and every piece of the family's data is in it: each contact's
 * names, e-mail, phone numbers and address, each child's name, the lessons delivered (date and
 * length), the family invoices' references, the consultations and the history by role. The zip is
 * handed to the family, so none of the agency's commercial terms or staff are in any of its files
 * (docs/personal-data.md).
 */
describe('a family’s subject-access export', () => {
  let product: TestProduct;
  let db: pg.Pool;
  let token: string;

  beforeAll(async () => {
    product = await startTestProduct();
    db = new pg.Pool({ connectionString: product.databaseUrl });
    await seedDemoData(product, 4);
    token = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
  });
  afterAll(async () => {
    await db.end();
    await product.dispose();
  });

  const download = (clientId: string, as = token) =>
    fetch(`${product.url}/api/clients/${clientId}/export`, { headers: { authorization: `Bearer ${as}` } });

  it('holds every piece of the family’s data, as JSON and a readable PDF', async () => {
    // A family with lessons (so invoices) and, where the demo has one, a consultation.
    const { client_id: clientId } = (
      await db.query<{ client_id: string }>(
        `select c.client_id from read.lessons l join read.children c on c.id = l.student_id
          group by c.client_id
          order by exists (select 1 from read.consultations k where k.client_id = c.client_id) desc, count(*) desc,
                   c.client_id
          limit 1`,
      )
    ).rows[0]!;
    const family = (await product.api(token).get(`/api/clients/${clientId}`)) as { client: Family };
    const q = async (sql: string) => (await db.query(sql, [clientId])).rows;
    const lessons = await q(
      `select to_char(l.date, 'YYYY-MM-DD') as date, l.duration_hundredths::int as duration from read.lessons l
         join read.children c on c.id = l.student_id where c.client_id = $1`,
    );
    const tutorInvoices = await q(
      `select distinct i.reference from read.invoices i join read.lessons l on l.tutor_id = i.tutor_id and l.month = i.month
         join read.children c on c.id = l.student_id where c.client_id = $1`,
    );
    const consultations = await q('select id from read.consultations where client_id = $1');
    const familyInvoices = await q('select reference from read.family_invoices where client_id = $1');
    expect(lessons.length).toBeGreaterThan(0);
    expect(tutorInvoices.length).toBeGreaterThan(0);
    expect(consultations.length).toBeGreaterThan(0);

    const response = await download(clientId);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/zip');
    const files = unzipSync(new Uint8Array(await response.arrayBuffer()));
    expect(Object.keys(files).sort()).toEqual(['export.json', 'summary.pdf']);
    const text = Buffer.from(files['export.json']!).toString('utf8');
    const archive = JSON.parse(text) as FamilyDataExport;

    for (const contact of family.client.contacts) {
      for (const value of [contact.firstName, contact.lastName, contact.email, contact.postcode, ...contact.address]) {
        expect(text, `contact value ${value}`).toContain(JSON.stringify(value));
      }
      for (const phone of contact.phone) expect(text).toContain(phone.number);
    }
    for (const child of family.client.children) {
      expect(text).toContain(JSON.stringify(child.firstName));
      expect(text).toContain(JSON.stringify(child.lastName));
    }
    expect(archive.consultations).toHaveLength(consultations.length);
    for (const { reference } of familyInvoices) expect(text).toContain(JSON.stringify(reference));
    // The tutors' invoices are the agency's business with its tutors, not the family's.
    for (const { reference } of tutorInvoices) expect(text).not.toContain(reference);
    expect(archive.lessons.map((lesson) => `${lesson.date} ${lesson.hours}`).sort()).toEqual(
      lessons.map((lesson) => `${lesson.date} ${lesson.duration / 100}`).sort(),
    );
    // The history: the family's registration, by the agency and when; and its lessons.
    expect(archive.history).toEqual(
      expect.arrayContaining([
        {
          by: 'the agency',
          what: expect.stringMatching(/^Registered with the agency from /),
          when: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
        },
        expect.objectContaining({ what: expect.stringMatching(/^Lesson on .* recorded: \d+\.\d\d h$/) }),
      ]),
    );

    const summary = pdfText(files['summary.pdf']!);
    expect(summary).toContain(family.client.contacts[0]!.email);
    expect(summary).toContain('Lessons');
    expect(summary).toContain('History of changes');
  });

  it('holds the family’s workshop bookings and their events’ history, and no other parent’s', async () => {
    const booked = (
      await db.query<{ client_id: string; event_id: string }>(
        `select client_id, event_id from read.workshop_registrations where client_id is not null
          order by seq limit 1`,
      )
    ).rows[0];
    expect(booked).toBeDefined();
    const { client_id: clientId, event_id: eventId } = booked!;
    const response = await download(clientId);
    expect(response.status).toBe(200);
    const archive = JSON.parse(
      Buffer.from(unzipSync(new Uint8Array(await response.arrayBuffer()))['export.json']!).toString('utf8'),
    ) as FamilyDataExport;
    const { description } = (
      await db.query<{ description: string }>('select description from read.workshop_events where id = $1', [eventId])
    ).rows[0]!;
    const rowsOfFamily = (
      await db.query<{ n: number }>('select count(*)::int as n from read.workshop_registrations where client_id = $1', [
        clientId,
      ])
    ).rows[0]!.n;
    expect(archive.workshopBookings).toHaveLength(rowsOfFamily);
    expect(archive.workshopBookings.map((booking) => booking.event)).toContain(description);
    // Of a workshop's stream, only the events about this family's bookings: one booking (or move in) per row.
    const told = archive.history.filter((h) => /^(Booked on|Booking moved to) /.test(h.what));
    expect(told.map((h) => h.what)).toEqual(expect.arrayContaining([expect.stringContaining(description)]));
    expect(told).toHaveLength(rowsOfFamily);
  });

  it('holds nothing of the agency’s business: no commission, partner share, tutor’s rate or pay, tutor’s invoice, internal state or member of staff', async () => {
    const api = product.api(token);
    const contact = (firstName: string, lastName: string) => ({
      firstName,
      lastName,
      address: ['2 Quay Street'],
      postcode: 'OX2 2BB',
      email: `${firstName}.${lastName}@example.com`.toLowerCase(),
      phone: [{ type: 'Mobile', number: '07700 900123' }],
    });
    const { tutor } = await api.post('/api/tutors/contact', {
      contact: contact('Rowan', 'Tutorly'),
      tutor: { username: 'rowan.tutorly', invoicePrefix: 'RWX', startDate: '2024-09-01' },
    });
    // The tutor's own login, named and numbered like any member of staff.
    const tutorLogin = { username: 'rowan.login', password: 'rowan-Export-pass-42', name: 'Rowena Loginname' };
    await api.post('/api/users', { ...tutorLogin, role: 'tutor', tutorId: tutor.id });
    const tutorToken = await product.login(tutorLogin.username, tutorLogin.password);
    const { client } = await api.post('/api/clients/contact', contact('Fay', 'Exportly'));
    const { child } = await api.post(`/api/clients/child/${client.id}`, {
      firstName: 'Kit',
      lastName: 'Exportly',
      dob: '2014-02-02',
    });
    const terms = { tutorId: tutor.id, rate: 37.19, commissionPct: 17.3, partnerPct: 11.7, subjects: ['Maths'] };
    const { engagement } = await api.post('/api/tutors/engagement', {
      ...terms,
      studentId: child.id,
      startDate: '2025-01-06',
    });
    const week = (date: string) => `?from=${date}&to=${date}&month=${date.slice(0, 7)}&tutorId=${tutor.id}`;
    const lesson = async (date: string, duration: number, as: string, more: { id?: string; amount?: number } = {}) =>
      (
        await product.api(as).post(`/api/lessons/lesson${week(date)}`, {
          tutorId: tutor.id,
          lesson: { engagementId: engagement.id, date, duration, ...more },
        })
      ).lesson?.id as string;
    const first = await lesson('2025-02-10', 1.5, token);
    // A change of a lesson's price alone is the agency's business; a lesson removed is the family's.
    await lesson('2025-02-10', 1.5, token, { id: first, amount: 50 });
    const removed = await lesson('2025-02-12', 1, token);
    await lesson('2025-02-12', 0, token, { id: removed });
    // A change of the commercial terms alone: the agency's business, not a line of the family's history.
    await api.post('/api/tutors/engagement', {
      ...terms,
      id: engagement.id,
      rate: 41.23,
      startDate: '2025-02-15',
      change: 'rates',
    });
    await lesson('2025-02-20', 1, tutorToken);
    const { invoice: tutorInvoice } = await api.post('/api/invoices/save', { tutorId: tutor.id, year: 2025, month: 2 });
    await api.post('/api/consultations', { client: client.id, child: child.id, date: '2025-03-03', amount: 60 });
    await reactorsSettled(db);
    const familyInvoice = await vi.waitFor(
      async () => {
        const found = await db.query<{ id: string; reference: string; date: string }>(
          `select id, reference, to_char(date, 'YYYY-MM-DD') as date from read.family_invoices where client_id = $1`,
          [client.id],
        );
        expect(found.rows).toHaveLength(1);
        return found.rows[0]!;
      },
      { timeout: 60_000, interval: 20 },
    );
    await api.post('/api/family-invoices/payment', { invoiceId: familyInvoice.id, date: '2025-03-10', amount: 20 });
    const staff = (
      await db.query<{ id: string; username: string; name: string }>(
        'select id, username, name from read.users where username = any($1)',
        [[TEST_ADMIN.username, tutorLogin.username]],
      )
    ).rows;
    expect(staff).toHaveLength(2);

    // Every file of the zip, as text: the JSON as it is, the PDF as the words it shows.
    const response = await download(client.id);
    expect(response.status).toBe(200);
    const files = unzipSync(new Uint8Array(await response.arrayBuffer()));
    const texts = Object.entries(files).map(([name, bytes]) =>
      name.endsWith('.pdf') ? pdfText(bytes) : Buffer.from(bytes).toString('utf8'),
    );
    expect(texts.length).toBeGreaterThanOrEqual(2);
    const everything = texts.join('\n');
    const archive = JSON.parse(Buffer.from(files['export.json']!).toString('utf8')) as FamilyDataExport;

    const forbidden = [
      /commission/i,
      /partner/i,
      /\brates?\b/i,
      /rate_?pence/i,
      /earnings/i,
      /"state"/,
      /ongoing/i,
      // The tutor's rates, the lessons' prices, commission and partner figures.
      /37\.19|3719|41\.23|4123|55\.79|5579|17\.3|1730|11\.7|1170|9\.65|7\.13/,
      new RegExp(tutorInvoice.reference),
      new RegExp(tutor.id),
      ...staff.flatMap((user) => [
        new RegExp(user.id),
        new RegExp(`\\b${user.username}\\b`, 'i'),
        new RegExp(user.name),
      ]),
    ];
    for (const pattern of forbidden) {
      for (const [index, text] of texts.entries()) {
        expect(text.match(pattern)?.[0], `${Object.keys(files)[index]} holds ${pattern}`).toBeUndefined();
      }
    }
    const keys = (value: unknown): string[] =>
      Array.isArray(value)
        ? value.flatMap(keys)
        : value && typeof value === 'object'
          ? Object.entries(value).flatMap(([key, field]) => [key, ...keys(field)])
          : [];
    expect(
      keys(archive).filter((key) => /commission|partner|rate|pence|^state$|^pay$|earnings|user|tutorId/i.test(key)),
    ).toEqual([]);

    // What the family may see is all there.
    expect(archive.lessons).toEqual([
      { date: '2025-02-10', child: 'Kit Exportly', tutor: 'Rowan Tutorly', subjects: ['Maths'], hours: 1.5 },
      { date: '2025-02-20', child: 'Kit Exportly', tutor: 'Rowan Tutorly', subjects: ['Maths'], hours: 1 },
    ]);
    expect(archive.tutoring).toEqual([
      { child: 'Kit Exportly', tutor: 'Rowan Tutorly', startDate: '2025-01-06', endDate: null, subjects: ['Maths'] },
    ]);
    expect(archive.invoices).toEqual([
      expect.objectContaining({ reference: familyInvoice.reference, total: 60, paid: 20, owed: 40, creditNote: null }),
    ]);
    expect(archive.payments).toEqual([{ invoice: familyInvoice.reference, date: '2025-03-10', amount: 20 }]);
    expect(archive.history.map(({ by, what }) => `${by}: ${what}`)).toEqual(
      expect.arrayContaining([
        'the agency: Tutoring started on 06 Jan 2025; subjects Maths',
        'the agency: Lesson on 10 Feb 2025 recorded: 1.50 h',
        'the tutor: Lesson on 20 Feb 2025 recorded: 1.00 h',
        'the agency: Lesson on 12 Feb 2025 removed',
        'the agency: Consultation on 03 Mar 2025 recorded: £60.00',
        `the agency: Invoice ${familyInvoice.reference} issued on ${displayDate(familyInvoice.date)}: £60.00`,
        'the agency: Payment of £20.00 received, paid on 10 Mar 2025',
      ]),
    );
    expect(archive.history.filter(({ what }) => what.includes('10 Feb 2025'))).toHaveLength(1);
    expect(everything).toContain('History of changes');
  });

  it('is refused to anyone but an admin and answers 404 for no family', async () => {
    expect((await download('no-such-family')).status).toBe(404);
    expect((await download('any', 'not-a-token')).status).toBe(401);
  });
});
