import { PostgresEventStore } from '@agency/platform';
import { openPersonalData } from '@agency/scripts/personal-data';
import { startTestProduct, TEST_ADMIN, type TestProduct } from '@agency/scripts/testing/test-product';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lessonsProjection } from '../read-models/lessons/projection';
import { AS_OF_STREAMS, AS_OF_VIEWS, agencyInstant, asOfView, pastAwarePool } from './as-of';
import { agencyTime } from './recorded-events';

/**
 * Views as of a past moment (`?asOf=`, agency time): replayed from the events recorded up to it.
 * What was recorded before the changes is moved two hours back, so "before" and "after" are far apart.
 */
describe('as of a past moment (real PostgreSQL)', () => {
  let product: TestProduct;
  let admin: string;
  let auditor: string;
  let tutor: string;
  const ids = { tutor: '', engagement: '', lesson: '' };
  let before = '';
  let after = '';
  const moment = (instant: Date) => agencyTime(instant, 'Europe/London').replace(' ', 'T');

  beforeAll(async () => {
    product = await startTestProduct();
    admin = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
    const api = product.api(admin);
    const contact = (firstName: string) => ({
      firstName,
      lastName: 'Past',
      address: ['1 Ledger Lane'],
      postcode: 'OX1 1AA',
      email: `${firstName.toLowerCase()}.past@example.com`,
      phone: [{ type: 'Mobile', number: '07700 900001' }],
    });
    const made = await api.post('/api/tutors/contact', {
      contact: contact('Tam'),
      tutor: { username: 'tam.past', invoicePrefix: 'TP', startDate: '2024-09-01' },
    });
    ids.tutor = made.tutor.id;
    const family = await api.post('/api/clients/contact', contact('Pam'));
    const { child } = await api.post(`/api/clients/child/${family.client.id}`, {
      firstName: 'Kim',
      lastName: 'Past',
      dob: '2014-02-02',
    });
    const terms = {
      tutorId: ids.tutor,
      commissionPct: 25,
      partnerPct: 10,
      startDate: '2025-01-06',
      subjects: ['Maths'],
    };
    ids.engagement = (
      await api.post('/api/tutors/engagement', { ...terms, studentId: child.id, rate: 30 })
    ).engagement.id;
    const week = `?from=2025-02-10&to=2025-02-10&month=2025-02&tutorId=${ids.tutor}`;
    const saveLesson = async (lesson: object) =>
      (await api.post(`/api/lessons/lesson${week}`, { tutorId: ids.tutor, lesson })).lesson.id as string;
    ids.lesson = await saveLesson({ engagementId: ids.engagement, date: '2025-02-10', duration: 1 });
    const password = 'audra-Past-pass-42';
    await api.post('/api/users', { username: 'audra', password, role: 'auditor', name: 'Audra Past' });
    auditor = await product.login('audra', password);
    await api.post('/api/users', {
      username: 'tam',
      password,
      role: 'tutor',
      tutorId: ids.tutor,
      name: 'Tam Past',
    });
    tutor = await product.login('tam', password);

    // Everything so far was recorded two hours ago.
    const db = new pg.Client({ connectionString: product.databaseUrl });
    await db.connect();
    await db.query(
      `update es.events set recorded_at = recorded_at - interval '2 hours',
         metadata = case when metadata ? 'recordedAt' then jsonb_set(metadata, '{recordedAt}', to_jsonb(
           to_char(((metadata->>'recordedAt')::timestamptz - interval '2 hours') at time zone 'UTC',
                   'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))) else metadata end`,
    );
    await db.end();
    before = moment(new Date(Date.now() - 60 * 60_000));

    // Now the period is corrected, the lesson's duration changed and the month invoiced.
    await api.post('/api/tutors/engagement', {
      ...terms,
      id: ids.engagement,
      change: 'correction',
      periodStart: '2025-01-06',
      rate: 32,
    });
    await saveLesson({ id: ids.lesson, engagementId: ids.engagement, date: '2025-02-10', duration: 2 });
    await api.post('/api/invoices/save', { tutorId: ids.tutor, year: 2025, month: 2 });
    after = moment(new Date(Date.now() + 60_000));
  });
  afterAll(() => product?.dispose());

  const get = (path: string, asOf: string, token = auditor) =>
    product.api(token).get(`${path}${path.includes('?') ? '&' : '?'}asOf=${asOf}`);

  it('shows an engagement period as it stood before its correction, and as corrected after', async () => {
    const path = `/api/tutors/engagement/${ids.tutor}/${ids.engagement}`;
    const past = await get(path, before);
    expect(past.engagement.rate).toBe(30);
    expect(past.engagement.history.map((row: { rate: number }) => row.rate)).toEqual([30]);
    expect(past.engagement.studentName).toBe('Kim Past');
    const later = await get(path, after);
    expect(later.engagement.rate).toBe(32);
    expect(later).toEqual(await product.api(auditor).get(path));
  });

  it("shows a lesson's old duration and amount before the change and the new ones after it", async () => {
    const path = `/api/lessons?year=2025&month=2&tutorId=${ids.tutor}`;
    const past = await get(path, before);
    expect(past.lessons).toHaveLength(1);
    expect(past.lessons[0]).toMatchObject({ id: ids.lesson, duration: 1, rate: 30, amount: 30, locked: false });
    const later = await get(path, after);
    expect(later.lessons[0]).toMatchObject({ id: ids.lesson, duration: 2, rate: 32, amount: 64, locked: true });
    expect(later).toEqual(await product.api(auditor).get(path));
  });

  it('shows the invoices list and the invoice status report as they stood then', async () => {
    const list = '/api/invoices?year=2025&month=2';
    expect((await get(list, before)).invoices).toEqual([]);
    const invoices = (await get(list, after)).invoices;
    expect(invoices).toHaveLength(1);
    expect(invoices[0]).toMatchObject({ tutorId: ids.tutor, earnings: 64 });
    const report = '/api/reports/invoiceStatus?year=2025&month=2';
    const earningsOf = (answer: { groups: { tutors: { tutorId: string; earnings: number }[] }[] }) =>
      answer.groups.flatMap((group) => group.tutors).find((row) => row.tutorId === ids.tutor)?.earnings;
    expect(earningsOf(await get(report, before))).toBe(30);
    expect(earningsOf(await get(report, after))).toBe(64);
  });

  it("replays only the month's streams for the status report and the invoices list, giving the rows a replay of all of $all gives", async () => {
    const personalData = await openPersonalData(product.dataDir, product.databaseUrl);
    const pool = new pg.Pool({ connectionString: product.databaseUrl, max: 2, options: '-c search_path=read' });
    const store = personalData.protect(await PostgresEventStore.connect(product.databaseUrl));
    // The scoped replay must not read $all: a store that refuses to shows it reads streams only.
    const streamsOnly = new Proxy(store, {
      get: (target, property) =>
        property === 'readAll'
          ? () => {
              throw new Error('the scoped replay read $all');
            }
          : Reflect.get(target, property, target),
    });
    try {
      const past = pastAwarePool(pool);
      const views = [
        { url: '/api/reports/invoiceStatus', query: { year: 2025, month: 2 }, months: ['2025-02'] },
        { url: '/api/invoices', query: { year: 2025, month: 2 }, months: ['2025-02'] },
        { url: '/api/invoices', query: { year: 2025 }, months: ['2025-01', '2025-02', '2025-12'] },
      ];
      for (const { url, query, months } of views) {
        const projections = AS_OF_VIEWS[url]!;
        const streams = await AS_OF_STREAMS[url]!(query, pool);
        const rows = async () => {
          const read = async (sql: string, values: unknown[] = []) =>
            (await past.query(sql, values)).rows.map((row) => JSON.stringify(row)).sort();
          const reads = projections.includes(lessonsProjection);
          return {
            tutors: await read('select * from tutors'),
            lessons: reads ? await read('select * from lessons where month = any($1)', [months]) : [],
            invoices: await read('select * from invoices where month = any($1)', [months]),
          };
        };
        for (const local of [before, after]) {
          const asOf = agencyInstant(local, 'Europe/London');
          const scoped = await asOfView(pool, streamsOnly, projections, asOf, rows, streams);
          const whole = await asOfView(pool, store, projections, asOf, rows);
          expect(scoped.tutors.length, url).toBeGreaterThan(0);
          expect(scoped, `${url} as of ${local}`).toEqual(whole);
        }
      }
    } finally {
      await store.close();
      await pool.end();
      await personalData.close();
    }
  });

  it('is for the office: a tutor is refused, and a malformed moment is a bad request', async () => {
    const status = async (url: string, token: string) =>
      (await fetch(`${product.url}${url}`, { headers: { authorization: `Bearer ${token}` } })).status;
    expect(await status(`/api/lessons?year=2025&month=2&asOf=${before}`, tutor)).toBe(403);
    expect(await status(`/api/lessons?year=2025&month=2&tutorId=${ids.tutor}&asOf=yesterday`, auditor)).toBe(400);
  });
});
