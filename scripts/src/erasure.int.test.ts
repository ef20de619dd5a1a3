import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { todayIn } from '@agency/domain';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoData } from './demo-data';
import { dumpDatabase, readModels, rebuildAsAFreshProcess } from './testing/database-dump';
import { startTestProduct, TEST_ADMIN, type TestProduct } from './testing/test-product';

type Contact = {
  firstName: string;
  lastName: string;
  address: string[];
  postcode: string;
  email: string;
  phone: { number: string }[];
};
type Family = { id: string; contacts: Contact[]; children: { id: string; firstName: string; lastName: string }[] };

const money = async (db: pg.Pool) =>
  (
    await db.query(
      `select id, tutor_id, month, reference, lesson_count, earnings_pence, commission_pence, partner_commission_pence, paid_pence
         from read.invoices order by id`,
    )
  ).rows;

const mailIn = (dir: string) =>
  existsSync(dir)
    ? readdirSync(dir)
        .filter((file) => file.endsWith('.eml'))
        .map((file) => readFileSync(join(dir, file), 'utf8'))
        .join('\n')
    : '';

/**
 * The erasure, whole: a demo family with lessons and invoices is erased through the route;
 * then none of its names, e-mails, phone numbers, addresses or children's names is anywhere in
 * the database (every table of every schema) or in mail sent afterwards, every invoice total is
 * as before, and a rebuild from the events gives the very rows the live projections hold.
 */
describe('erasing a family (crypto-shredding)', () => {
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

  const post = (url: string, payload: object) =>
    product.command.app.inject({
      method: 'POST',
      url,
      payload: { commandId: randomUUID(), ...payload },
      headers: { authorization: `Bearer ${token}` },
    });

  it('leaves no trace of the family but its money history, and a rebuild matches', async () => {
    const api = product.api(token);
    // A family with lessons (so tutor invoices), family invoices, consultations and a workshop
    // booking, whichever the demo data of the day holds most of. Its engagements are ended first.
    const taught = (
      await db.query<{ client_id: string; billed: boolean; booked: boolean; consulted: boolean }>(
        `select c.client_id,
                exists (select 1 from read.family_invoices f where f.client_id = c.client_id) as billed,
                exists (select 1 from read.workshop_registrations w where w.client_id = c.client_id) as booked,
                exists (select 1 from read.consultations k where k.client_id = c.client_id) as consulted
           from read.lessons l join read.children c on c.id = l.student_id
          group by c.client_id
          order by 2 desc, 3 desc, 4 desc, count(*) desc, c.client_id limit 1`,
      )
    ).rows[0];
    expect(taught).toMatchObject({ billed: true, booked: true, consulted: true });
    const clientId = taught!.client_id;
    const open = await db.query(
      `select e.id, e.tutor_id, to_char(e.start_date, 'YYYY-MM-DD') as start_date, e.rate_pence, e.commission_bp,
              e.partner_bp, e.subjects
         from read.engagements e join read.children c on c.id = e.student_id
        where c.client_id = $1 and e.end_date is null`,
      [clientId],
    );
    expect(open.rows.length).toBeGreaterThan(0);
    const refused = await post(`/api/clients/erase/${clientId}`, { reason: 'Asked by the family', confirm: true });
    expect(refused.statusCode, 'refused while the family is being taught').toBe(409);
    const today = todayIn('Europe/London', new Date());
    for (const e of open.rows) {
      const ended = await post('/api/tutors/engagement', {
        id: e.id,
        tutorId: e.tutor_id,
        change: 'termination',
        startDate: e.start_date,
        endDate: today,
        rate: Number(e.rate_pence) / 100,
        commissionPct: e.commission_bp / 100,
        partnerPct: e.partner_bp / 100,
        subjects: e.subjects,
      });
      expect(ended.statusCode, ended.body).toBe(200);
    }
    expect(
      Number(
        (
          await db.query(
            'select count(*) from read.lessons l join read.children c on c.id = l.student_id where c.client_id = $1',
            [clientId],
          )
        ).rows[0].count,
      ),
    ).toBeGreaterThan(0);
    const { client } = (await api.get(`/api/clients/${clientId}`)) as { client: Family };

    // Values the family shares with someone else (a first name, a town) are theirs too and stay.
    const others = (
      await db.query(
        `select t::text from read.contacts t where client_id <> $1
         union all select t::text from read.children t where client_id <> $1
         union all select t::text from read.workshop_registrations t where client_id is distinct from $1
         union all select t::text from read.tutors t union all select t::text from read.users t`,
        [clientId],
      )
    ).rows
      .map((row) => row.t)
      .join('\n');
    const personal = [
      ...client.contacts.flatMap((c) => [
        c.firstName,
        c.lastName,
        c.email,
        c.postcode,
        ...c.address,
        ...c.phone.map((p) => p.number),
      ]),
      ...client.children.flatMap((c) => [c.firstName, c.lastName]),
    ];
    const own = [...new Set(personal)].filter((value) => !others.includes(value));
    // The surname, the e-mail addresses, the phone numbers, the street and the postcode at least.
    expect(own.length).toBeGreaterThanOrEqual(5);
    const before = await dumpDatabase(db);
    for (const value of own) expect(before, `${value} is held before the erasure`).toContain(value);
    expect(before).not.toContain(client.contacts[0]!.email.replace('@', '\u0000'));

    const invoicesBefore = await money(db);
    const lessonsBefore = (await db.query('select t::text from read.lessons t order by id')).rows;

    // Refused without the confirmation or a reason.
    expect((await post(`/api/clients/erase/${clientId}`, { reason: 'Asked by the family' })).statusCode).toBe(400);
    expect((await post(`/api/clients/erase/${clientId}`, { reason: ' ', confirm: true })).statusCode).toBe(400);
    const erased = await post(`/api/clients/erase/${clientId}`, {
      reason: 'Asked by the family (e-mail of 3 March)',
      confirm: true,
    });
    expect(erased.statusCode, erased.body).toBe(200);
    expect(erased.json()).toMatchObject({ client: { id: clientId, erased: true }, visible: true });

    // Mail sent after the erasure (a tutor's activation e-mail) carries none of it either.
    const outbox = join(product.dataDir, 'outbox');
    const mailBefore = mailIn(outbox).length;
    const newcomer = (
      await db.query(
        'select id from read.tutors where active and user_id is null and activation_sent_to is null limit 1',
      )
    ).rows[0];
    const sent = await post(`/api/tutors/activate/${newcomer.id}`, {});
    expect(sent.statusCode, sent.body).toBe(200);
    // The mail reactor sends it a moment after the answer.
    await expect.poll(() => mailIn(outbox).length, { timeout: 60_000 }).toBeGreaterThan(mailBefore);
    const after = await dumpDatabase(db);
    const mail = mailIn(outbox);
    for (const value of own) {
      expect(after, `${value} in the database after the erasure`).not.toContain(value);
      expect(mail, `${value} in the mail after the erasure`).not.toContain(value);
    }
    const { client: shown } = (await api.get(`/api/clients/${clientId}`)) as { client: Family };
    expect(shown.contacts.every((c) => c.firstName === 'Erased' && c.email === 'Erased' && c.phone.length === 0)).toBe(
      true,
    );
    expect(shown.children.every((c) => c.firstName === 'Erased' && c.lastName === 'Erased')).toBe(true);
    expect(after).toContain('Asked by the family (e-mail of 3 March)');

    // Money history whole.
    expect(await money(db)).toEqual(invoicesBefore);
    expect((await db.query('select t::text from read.lessons t order by id')).rows).toEqual(lessonsBefore);

    // Nothing personal can be recorded for the family again.
    expect(
      (await post(`/api/clients/child/${clientId}`, { firstName: 'New', lastName: 'Child', dob: '2019-01-02' }))
        .statusCode,
    ).toBe(409);

    // A rebuild (a fresh process's key cache) reads the erased fields as "Erased": the same rows.
    const live = await readModels(db);
    await rebuildAsAFreshProcess(product, db);
    expect(await readModels(db)).toEqual(live);
  });
});
