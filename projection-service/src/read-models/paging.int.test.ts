import { startTestProduct, TEST_ADMIN, type TestProduct } from '@agency/scripts/testing/test-product';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nameMatches, nameSearchOf, nameSearchParams } from './name-search';

const contact = (firstName: string, lastName: string) => ({
  firstName,
  lastName,
  address: ['1 High Street'],
  postcode: 'OX1 1AA',
  email: `${firstName}.${lastName}@example.com`.toLowerCase(),
  phone: [{ type: 'Mobile', number: '07700 900001' }],
});

type Page<K extends string> = { [key in K]: { id: string }[] } & { total: number; nextCursor: string | null };

/** The lessons month and the clients list come a page at a time, every row exactly once. */
describe('paged lists', () => {
  let product: TestProduct;
  let token: string;
  let admin: ReturnType<TestProduct['api']>;
  const tutors: string[] = [];
  const engagements: { tutorId: string; id: string }[] = [];
  const lessonIds: string[] = [];

  const get = async (url: string) => {
    const response = await fetch(`${product.url}${url}`, { headers: { authorization: `Bearer ${token}` } });
    return { status: response.status, body: await response.json() };
  };

  /** Every page of `url` (a list of `_list`) at `limit` rows, following `nextCursor` to the end. */
  async function allPages<K extends 'lessons' | 'clients'>(_list: K, url: string, limit: number) {
    const pages: Page<K>[] = [];
    let cursor: string | null = null;
    do {
      const page: Page<K> = await admin.get(
        `${url}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      pages.push(page);
      cursor = page.nextCursor;
    } while (cursor && pages.length < 50);
    return pages;
  }

  beforeAll(async () => {
    product = await startTestProduct();
    token = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
    admin = product.api(token);
    // Families named so that the list's order (by name) differs from the order they were made in.
    const children: string[] = [];
    for (const last of ['Young', 'Adams', 'Moss', 'Adams', 'Baker', 'Zane', 'Moss']) {
      const { client } = await admin.post('/api/clients/contact', contact('Pat', last));
      const { child } = await admin.post(`/api/clients/child/${client.id}`, {
        firstName: 'Kim',
        lastName: last,
        dob: '2014-01-01',
      });
      children.push(child.id);
    }
    for (const [first, prefix] of [
      ['Uma', 'UP'],
      ['Abe', 'AP'],
    ]) {
      const made = await admin.post('/api/tutors/contact', {
        contact: contact(first as string, 'Pager'),
        tutor: { username: `${first}pager`.toLowerCase(), invoicePrefix: prefix, startDate: '2024-01-01' },
      });
      tutors.push(made.tutor.id);
    }
    for (const tutorId of tutors) {
      for (const studentId of children.slice(0, 3)) {
        const { engagement } = await admin.post('/api/tutors/engagement', {
          tutorId,
          studentId,
          rate: 40,
          commissionPct: 25,
          partnerPct: 10,
          startDate: '2024-01-01',
          subjects: ['Maths'],
        });
        engagements.push({ tutorId, id: engagement.id });
      }
    }
    // 18 lessons on three days: many share a date, so pages break inside a day's names.
    for (const date of ['2024-03-04', '2024-03-05', '2024-03-06']) {
      for (const { tutorId, id } of engagements) {
        const saved = await admin.post('/api/lessons/lesson', {
          tutorId,
          lesson: { engagementId: id, date, duration: 1 },
        });
        lessonIds.push(saved.lesson.id);
      }
    }
  });
  afterAll(() => product?.dispose());

  it('gives every lesson of the month exactly once, in the order of the whole list, with its totals', async () => {
    const whole = await admin.get('/api/lessons?year=2024&month=3&limit=1000');
    expect(whole.lessons).toHaveLength(18);
    expect(whole.total).toBe(18);
    expect(whole.nextCursor).toBeNull();
    for (const limit of [1, 4, 5, 17]) {
      const pages = await allPages('lessons', '/api/lessons?year=2024&month=3', limit);
      expect(pages).toHaveLength(Math.ceil(18 / limit));
      expect(pages.flatMap((page) => page.lessons)).toEqual(whole.lessons);
      for (const page of pages) {
        expect(page.total).toBe(18);
        // The totals are the month's, whichever page.
        expect((page as unknown as { totals: unknown }).totals).toEqual(whole.totals);
      }
    }
    expect(whole.totals).toEqual({ amount: 720, commission: 180, partnerCommission: 18 });
    // One tutor's month pages the same way, within that tutor's lessons only.
    const own = await allPages('lessons', `/api/lessons?year=2024&month=3&tutorId=${tutors[1]}`, 4);
    expect(own.flatMap((page) => page.lessons)).toEqual(
      whole.lessons.filter((lesson: { tutorId: string }) => lesson.tutorId === tutors[1]),
    );
    expect(own[0]?.total).toBe(9);
  });

  it('answers the first page by default, with the marker of the next', async () => {
    const first = await admin.get('/api/lessons?year=2024&month=3');
    expect(first.lessons).toHaveLength(18);
    expect(first.nextCursor).toBeNull();
    const short = await admin.get('/api/lessons?year=2024&month=3&limit=10');
    expect(short.lessons).toHaveLength(10);
    expect(short.nextCursor).toEqual(expect.any(String));
  });

  it('refuses a limit out of bounds or a cursor of nothing, and a cursor whose lesson left the list', async () => {
    for (const query of ['limit=0', 'limit=1001', 'limit=ten', 'cursor=not-a-cursor', 'cursor=W10']) {
      const answer = await get(`/api/lessons?year=2024&month=3&${query}`);
      expect(answer.status, query).toBe(400);
      expect(answer.body.error).toMatchObject({ code: 'invalid_input', fields: expect.any(Object) });
    }
    const page = await admin.get('/api/lessons?year=2024&month=3&limit=2');
    // A cursor of another month names nothing in this one.
    expect((await get(`/api/lessons?year=2024&month=4&cursor=${page.nextCursor}`)).status).toBe(409);
    const [gone] = page.lessons as { id: string; tutorId: string; engagementId: string; date: string }[];
    if (!gone) throw new Error('no lesson');
    await admin.post('/api/lessons/lesson', {
      tutorId: gone.tutorId,
      lesson: { id: gone.id, engagementId: gone.engagementId, date: gone.date, duration: 0 },
    });
    const stale = await get(`/api/lessons?year=2024&month=3&limit=2&cursor=${page.nextCursor}`);
    // The page's second lesson is still there: its cursor goes on.
    expect(stale.status).toBe(200);
    expect(stale.body.total).toBe(17);
    const removedCursor = Buffer.from(JSON.stringify([gone.date, gone.id])).toString('base64url');
    const afterGone = await get(`/api/lessons?year=2024&month=3&cursor=${removedCursor}`);
    expect(afterGone.status).toBe(409);
    expect(afterGone.body.error).toMatchObject({ code: 'list_changed', fields: { cursor: expect.any(String) } });
  });

  it('gives every family of the clients list exactly once, by name', async () => {
    const whole = await admin.get('/api/clients?limit=1000');
    expect(whole.clients).toHaveLength(7);
    expect(whole.total).toBe(7);
    expect(whole.clients.map((client: { name: string }) => client.name)).toEqual([
      'Pat Adams',
      'Pat Adams',
      'Pat Baker',
      'Pat Moss',
      'Pat Moss',
      'Pat Young',
      'Pat Zane',
    ]);
    for (const limit of [1, 2, 3, 7]) {
      const pages = await allPages('clients', '/api/clients?includeInactive=Y', limit);
      expect(pages).toHaveLength(Math.ceil(7 / limit));
      expect(pages.flatMap((page) => page.clients)).toEqual(whole.clients);
      expect(pages.every((page) => page.total === 7)).toBe(true);
    }
    // A tutor filter pages within the families that tutor teaches.
    const taught = await allPages('clients', `/api/clients?tutor=${tutors[0]}`, 2);
    expect(taught.flatMap((page) => page.clients.map((client) => client.id))).toHaveLength(3);
    expect(taught[0]?.total).toBe(3);
    const bad = await get('/api/clients?cursor=nonsense');
    expect(bad.status).toBe(400);
    const foreign = Buffer.from(JSON.stringify(['no-such-client'])).toString('base64url');
    expect((await get(`/api/clients?cursor=${foreign}`)).status).toBe(409);
  });

  it('offers to add lessons to one tutor’s open month only: an invoiced (locked) month does not, on any page, and names its invoice', async () => {
    const url = `/api/lessons?year=2024&month=3&tutorId=${tutors[0]}`;
    expect(await admin.get(url)).toMatchObject({ canAddLessons: true, invoiceId: null });
    const { invoice } = await admin.post('/api/invoices/save', { tutorId: tutors[0], year: 2024, month: 3 });
    expect(await admin.get(url)).toMatchObject({ canAddLessons: false, invoiceId: invoice.id });
    expect(await admin.get(`${url}&limit=2`)).toMatchObject({ canAddLessons: false, invoiceId: invoice.id });
    // The other tutor's month stays open; the whole agency's list never offers it, nor names an invoice.
    expect((await admin.get(`/api/lessons?year=2024&month=3&tutorId=${tutors[1]}`)).canAddLessons).toBe(true);
    expect(await admin.get('/api/lessons?year=2024&month=3')).toMatchObject({ canAddLessons: false, invoiceId: null });
  });

  it('searches the clients list by a contact’s or a child’s name, a page at a time, and sorts it by its columns', async () => {
    type Listed = { clients: { name: string; email: string; students: number }[]; total: number };
    const names = (page: Listed) => page.clients.map((client) => client.name);
    // Each word starts the first or the last name of one person, case aside.
    expect(names(await admin.get('/api/clients?q=mo'))).toEqual(['Pat Moss', 'Pat Moss']);
    expect(names(await admin.get('/api/clients?q=PAT%20ad'))).toEqual(['Pat Adams', 'Pat Adams']);
    expect(names(await admin.get('/api/clients?q=kim%20young'))).toEqual(['Pat Young']);
    expect((await admin.get('/api/clients?q=pat%20kim')).total).toBe(0);
    expect((await admin.get('/api/clients?q=oss')).total).toBe(0);
    // LIKE's own characters are plain letters of the search.
    expect((await admin.get('/api/clients?q=%25')).total).toBe(0);
    expect((await admin.get('/api/clients?q=_at')).total).toBe(0);
    // A blank search is no search; one past the bound is refused.
    expect((await admin.get('/api/clients?q=%20%20')).total).toBe(7);
    expect((await get(`/api/clients?q=${'a'.repeat(201)}`)).status).toBe(400);
    // The pages of a search are the search's, every family once.
    const searched = await allPages('clients', '/api/clients?q=pat', 3);
    expect(searched.flatMap((page) => page.clients).map((client) => (client as { name?: string }).name)).toEqual(
      names(await admin.get('/api/clients?limit=1000')),
    );
    expect(searched[0]?.total).toBe(7);

    // Sorted by a column either way, paged in that order.
    const [zane] = (await admin.get('/api/clients?q=zane')).clients;
    await admin.post(`/api/clients/child/${zane.id}`, { firstName: 'Lee', lastName: 'Zane', dob: '2016-01-01' });
    const byStudents: Listed = await admin.get('/api/clients?sort=students&order=desc');
    expect(byStudents.clients[0]).toMatchObject({ name: 'Pat Zane', students: 2 });
    const descending: Listed = await admin.get('/api/clients?sort=name&order=desc');
    expect(names(descending)).toEqual(names(await admin.get('/api/clients')).reverse());
    for (const url of [
      '/api/clients?sort=name&order=desc',
      '/api/clients?sort=students&order=desc',
      '/api/clients?sort=email',
    ]) {
      const whole: Listed = await admin.get(`${url}&limit=1000`);
      const pages = await allPages('clients', url, 2);
      expect(pages.flatMap((page) => page.clients)).toEqual(whole.clients);
    }
    const byEmail: Listed = await admin.get('/api/clients?sort=email');
    const emails = byEmail.clients.map((client) => client.email);
    expect(emails).toEqual([...emails].sort());
    expect((await get('/api/clients?sort=address')).status).toBe(400);
  });

  it('searches and sorts the tutors list', async () => {
    type Listed = { tutors: { name: string }[] };
    const names = async (url: string) => ((await admin.get(url)) as Listed).tutors.map((tutor) => tutor.name);
    expect(await names('/api/tutors?q=uma')).toEqual(['Uma Pager']);
    expect(await names('/api/tutors?q=pag%20ab')).toEqual(['Abe Pager']);
    expect(await names('/api/tutors?q=pager')).toEqual(['Abe Pager', 'Uma Pager']);
    expect(await names('/api/tutors?q=pager&sort=name&order=desc')).toEqual(['Uma Pager', 'Abe Pager']);
    expect(await names('/api/tutors?q=pager&sort=email&order=desc')).toEqual(['Uma Pager', 'Abe Pager']);
    expect(await names('/api/tutors?q=nobody')).toEqual([]);
    expect((await get('/api/tutors?sort=phone')).status).toBe(400);
  });

  it('finds names through the name indexes (the first word a range of the index, not a scan of every row)', async () => {
    const db = new pg.Pool({ connectionString: product.databaseUrl, options: '-c search_path=read' });
    const sql = await db.connect();
    try {
      await sql.query('begin');
      // A test's table is too small for the planner to care: without a sequential scan to choose,
      // the plan shows whether the indexes serve the search.
      await sql.query('set local enable_seqscan = off');
      const explain = async (table: string) => {
        const plan = await sql.query(
          `explain select 1 from ${table} p where ${nameMatches('p.first_name', 'p.last_name', '$1', '$2')}`,
          nameSearchParams(nameSearchOf('Ad pat')),
        );
        return plan.rows.map((row) => row['QUERY PLAN']).join('\n');
      };
      for (const table of ['contacts', 'children', 'tutors']) {
        const plan = await explain(table);
        expect(plan).toMatch(/Index Cond: \(+lower\(last_name\) ~>=~ 'ad'/);
        expect(plan).toMatch(new RegExp(`${table}_first_name_search`));
        expect(plan).toMatch(new RegExp(`${table}_last_name_search`));
      }
    } finally {
      await sql.query('rollback');
      sql.release();
      await db.end();
    }
  });
});
