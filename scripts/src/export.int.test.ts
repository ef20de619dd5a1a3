import { unzipSync } from 'fflate';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoData } from './demo-data';
import { pdfText } from './testing/pdf-text';
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
 * Issue 13's subject-access export: an admin's GET /api/clients/{id}/export answers a zip with
 * export.json and summary.pdf, and every piece of the family's data is in it: each contact's
 * names, e-mail, phone numbers and address, each child's name, the engagements, the lessons'
 * dates and amounts, the invoices' references, the consultations and the history with who.
 */
describe('a family’s subject-access export', () => {
  let product: TestProduct;
  let db: pg.Pool;
  let token: string;

  beforeAll(async () => {
    product = await startTestProduct();
    db = new pg.Pool({ connectionString: product.databaseUrl });
    await seedDemoData(product, 8);
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
    const engagements = await q(
      'select e.id from read.engagements e join read.children c on c.id = e.student_id where c.client_id = $1',
    );
    const lessons = await q(
      `select to_char(l.date, 'YYYY-MM-DD') as date, l.amount_pence::int as amount from read.lessons l
         join read.children c on c.id = l.student_id where c.client_id = $1`,
    );
    const invoices = await q(
      `select distinct i.reference from read.invoices i join read.lessons l on l.tutor_id = i.tutor_id and l.month = i.month
         join read.children c on c.id = l.student_id where c.client_id = $1`,
    );
    const consultations = await q('select id from read.consultations where client_id = $1');
    const familyInvoices = await q('select reference from read.family_invoices where client_id = $1');
    expect(lessons.length).toBeGreaterThan(0);
    expect(invoices.length).toBeGreaterThan(0);
    expect(consultations.length).toBeGreaterThan(0);

    const response = await download(clientId);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/zip');
    const files = unzipSync(new Uint8Array(await response.arrayBuffer()));
    expect(Object.keys(files).sort()).toEqual(['export.json', 'summary.pdf']);
    const text = Buffer.from(files['export.json']!).toString('utf8');
    const archive = JSON.parse(text);

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
    for (const { id } of [...engagements, ...consultations]) expect(text).toContain(JSON.stringify(id));
    for (const { reference } of [...invoices, ...familyInvoices]) expect(text).toContain(JSON.stringify(reference));
    const exported = (archive.lessons as { date: string; amount_pence: number }[]).map(
      (lesson) => `${lesson.date} ${lesson.amount_pence}`,
    );
    expect(exported.sort()).toEqual(lessons.map((lesson) => `${lesson.date} ${lesson.amount}`).sort());
    // The history: the family's registration, with who recorded it and when.
    expect(archive.history).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          streamId: `client-${clientId}`,
          type: 'ClientRegistered',
          who: expect.objectContaining({ name: expect.any(String), role: expect.any(String) }),
          when: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
        }),
        expect.objectContaining({ streamId: expect.stringMatching(/^timesheet-/) }),
      ]),
    );

    const summary = pdfText(files['summary.pdf']!);
    expect(summary).toContain(family.client.contacts[0]!.email);
    expect(summary).toContain('Lessons');
    expect(summary).toContain('History of changes');
  });

  it('holds the family’s workshop bookings and their events’ history, and no other parent’s', async () => {
    const booked = (
      await db.query<{ client_id: string; id: string; event_id: string }>(
        `select client_id, id, event_id from read.workshop_registrations where client_id is not null
          order by seq limit 1`,
      )
    ).rows[0];
    expect(booked).toBeDefined();
    const { client_id: clientId, id, event_id: eventId } = booked!;
    const response = await download(clientId);
    expect(response.status).toBe(200);
    const archive = JSON.parse(
      Buffer.from(unzipSync(new Uint8Array(await response.arrayBuffer()))['export.json']!).toString('utf8'),
    );
    expect(archive.workshopRegistrations.map((r: { id: string }) => r.id)).toContain(id);
    const fromWorkshops = (archive.history as { streamId: string; type: string }[]).filter((h) =>
      h.streamId.startsWith('workshop-event-'),
    );
    expect(fromWorkshops).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ streamId: `workshop-event-${eventId}`, type: 'WorkshopRegistrationMade' }),
      ]),
    );
    // Of a workshop's stream, only the events about this family's bookings: one booking (or move in) per row.
    const rowsOfFamily = await db.query(
      'select count(*)::int as n from read.workshop_registrations where client_id = $1',
      [clientId],
    );
    expect(fromWorkshops.filter((h) => h.type === 'WorkshopRegistrationMade').length).toBe(rowsOfFamily.rows[0].n);
  });

  it('is refused to anyone but an admin and answers 404 for no family', async () => {
    expect((await download('no-such-family')).status).toBe(404);
    expect((await download('any', 'not-a-token')).status).toBe(401);
  });
});
