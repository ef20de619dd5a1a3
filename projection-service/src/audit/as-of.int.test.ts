import { type EventStore, type Position, PostgresEventStore, type RecordedEvent, START } from '@agency/platform';
import { openPersonalData } from '@agency/scripts/personal-data';
import { startTestProduct, TEST_ADMIN, type TestProduct } from '@agency/scripts/testing/test-product';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quoteIdent } from '../projection-runner';
import { projections } from '../read-models';
import { clientsProjection } from '../read-models/clients/projection';
import { engagementsProjection } from '../read-models/engagements/projection';
import { invoicesProjection } from '../read-models/invoices/projection';
import { lessonsProjection } from '../read-models/lessons/projection';
import { migrations } from '../read-models/migrations';
import { handlerFor } from '../read-models/projection';
import { compareWithRebuild, rebuildReadModels } from '../read-models/read-schema';
import { tutorsProjection } from '../read-models/tutors/projection';
import { buildQueryApp } from '../testing/query-app';
import {
  AS_OF_VIEWS,
  agencyInstant,
  type PastConnection,
  positionAt,
  rowsAt,
  sqlAsOf,
  VERSIONED_TABLES,
  type VersionedTable,
  withPastConnection,
} from './as-of';
import { agencyTime } from './recorded-events';

/** The projections whose tables keep row versions, and so every view seen as of a past moment reads. */
const versioned = [tutorsProjection, clientsProjection, engagementsProjection, lessonsProjection, invoicesProjection];
const JWT_SECRET = 'test-secret-test-secret-test-secret';

/**
 * Views as of a past moment (`?asOf=`, agency time), from the read models' row versions. The
 * agency is built in three phases; the events of each are then moved an hour further back than
 * the next one's, and the read models rebuilt, so the moments between the phases are far apart.
 * The reference for every past answer is the old way of seeing it: the live query run on a
 * replay, into a scratch schema, of the events recorded up to that moment.
 */
describe('as of a past moment (real PostgreSQL)', () => {
  let product: TestProduct;
  let admin: string;
  let auditor: string;
  let tutor: string;
  let store: EventStore;
  let personalData: Awaited<ReturnType<typeof openPersonalData>>;
  let pool: pg.Pool;
  let queryApp: Awaited<ReturnType<typeof buildQueryApp>>;
  let replaying: PastConnection | undefined;
  const ids = {
    tutor: '',
    engagement: '',
    other: '',
    lesson: '',
    otherLesson: '',
    gone: '',
    kim: '',
    pam: '',
    bea: '',
    invoice: '',
    ned: '',
  };
  /**
   * Between the phases, in agency time: before anything, after the set-up, after the edits, after
   * the rest (and before the erasures, made last, on the live read models).
   */
  const moments = { nothing: '', setUp: '', edited: '', later: '' };
  let present = '';
  const moment = (instant: Date) => agencyTime(instant, 'Europe/London').replace(' ', 'T');
  const HOUR = 60 * 60_000;

  beforeAll(async () => {
    product = await startTestProduct();
    admin = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
    const api = product.api(admin);
    const db = new pg.Client({ connectionString: product.databaseUrl });
    await db.connect();
    // Everything recorded so far moves an hour back.
    const anHourBack = () =>
      db.query(
        `update es.events set recorded_at = recorded_at - interval '1 hour',
           metadata = case when metadata ? 'recordedAt' then jsonb_set(metadata, '{recordedAt}', to_jsonb(
             to_char(((metadata->>'recordedAt')::timestamptz - interval '1 hour') at time zone 'UTC',
                     'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))) else metadata end`,
      );
    const contact = (firstName: string, lastName = 'Past') => ({
      firstName,
      lastName,
      address: ['1 Ledger Lane'],
      postcode: 'OX1 1AA',
      email: `${firstName.toLowerCase()}.past@example.com`,
      phone: [{ type: 'Mobile', number: '07700 900001' }],
    });
    const terms = { commissionPct: 25, partnerPct: 10, startDate: '2025-01-06', subjects: ['Maths'] };
    const week = (date: string) => `?from=${date}&to=${date}&month=2025-02&tutorId=${ids.tutor}`;
    const saveLesson = async (lesson: { date: string; engagementId: string; id?: string; duration: number }) =>
      (await api.post(`/api/lessons/lesson${week(lesson.date)}`, { tutorId: ids.tutor, lesson })).lesson?.id as string;

    // The set-up: a tutor teaching two children of two families, three lessons in February.
    const made = await api.post('/api/tutors/contact', {
      contact: contact('Tam'),
      tutor: { username: 'tam.past', invoicePrefix: 'TP', startDate: '2024-09-01' },
    });
    ids.tutor = made.tutor.id;
    // A second tutor, who leaves and is erased at the end.
    ids.ned = (
      await api.post('/api/tutors/contact', {
        contact: contact('Ned', 'Left'),
        tutor: { username: 'ned.left', invoicePrefix: 'NL', startDate: '2024-09-01' },
      })
    ).tutor.id;
    ids.pam = (await api.post('/api/clients/contact', contact('Pam'))).client.id;
    ids.kim = (
      await api.post(`/api/clients/child/${ids.pam}`, { firstName: 'Kim', lastName: 'Past', dob: '2014-02-02' })
    ).child.id;
    ids.bea = (await api.post('/api/clients/contact', contact('Bea', 'Gone'))).client.id;
    const lou = (
      await api.post(`/api/clients/child/${ids.bea}`, { firstName: 'Lou', lastName: 'Gone', dob: '2015-03-03' })
    ).child.id;
    ids.engagement = (
      await api.post('/api/tutors/engagement', { ...terms, tutorId: ids.tutor, studentId: ids.kim, rate: 30 })
    ).engagement.id;
    ids.other = (
      await api.post('/api/tutors/engagement', { ...terms, tutorId: ids.tutor, studentId: lou, rate: 40 })
    ).engagement.id;
    ids.lesson = await saveLesson({ engagementId: ids.engagement, date: '2025-02-10', duration: 1 });
    ids.otherLesson = await saveLesson({ engagementId: ids.other, date: '2025-02-11', duration: 1 });
    ids.gone = await saveLesson({ engagementId: ids.other, date: '2025-02-12', duration: 1 });
    const password = 'audra-Past-pass-42';
    await api.post('/api/users', { username: 'audra', password, role: 'auditor', name: 'Audra Past' });
    auditor = await product.login('audra', password);
    await api.post('/api/users', { username: 'tam', password, role: 'tutor', tutorId: ids.tutor, name: 'Tam Past' });
    tutor = await product.login('tam', password);
    await anHourBack();

    // The edits: the first period corrected, a lesson's duration changed, another removed, the month invoiced.
    await api.post('/api/tutors/engagement', {
      ...terms,
      tutorId: ids.tutor,
      id: ids.engagement,
      change: 'correction',
      periodStart: '2025-01-06',
      rate: 32,
    });
    await saveLesson({ id: ids.lesson, engagementId: ids.engagement, date: '2025-02-10', duration: 2 });
    await saveLesson({ id: ids.gone, engagementId: ids.other, date: '2025-02-12', duration: 0 });
    ids.invoice = (await api.post('/api/invoices/save', { tutorId: ids.tutor, year: 2025, month: 2 })).invoice.id;
    await anHourBack();

    // The rest: new rates from March, new names, the invoice withdrawn, a lesson changed and the
    // month invoiced again, confirmed and paid; the other engagement ended, the other tutor gone.
    await api.post('/api/tutors/engagement', {
      ...terms,
      tutorId: ids.tutor,
      id: ids.other,
      change: 'rates',
      startDate: '2025-03-01',
      rate: 44,
    });
    await api.post('/api/tutors/tutor', {
      contact: contact('Tamsin'),
      tutor: { id: ids.tutor, username: 'tam.past', invoicePrefix: 'TP', startDate: '2024-09-01' },
    });
    await api.post(`/api/clients/child/${ids.pam}`, {
      id: ids.kim,
      firstName: 'Kit',
      lastName: 'Past',
      dob: '2014-02-02',
    });
    await api.post('/api/invoices/withdraw', { id: ids.invoice });
    await saveLesson({ id: ids.otherLesson, engagementId: ids.other, date: '2025-02-11', duration: 1.5 });
    await api.post('/api/invoices/save', { tutorId: ids.tutor, year: 2025, month: 2 });
    await api.post('/api/invoices/confirm', { id: ids.invoice });
    await api.post('/api/invoices/payment', { invoiceId: ids.invoice, date: '2025-03-05', amount: 10 });
    await api.post('/api/tutors/engagement', {
      ...terms,
      tutorId: ids.tutor,
      id: ids.other,
      change: 'termination',
      endDate: '2025-03-31',
      rate: 44,
      startDate: '2025-01-06',
    });
    await api.post(`/api/tutors/active/${ids.ned}`, { active: false, endDate: '2025-06-30' });
    await anHourBack();
    await db.end();
    const now = Date.now();
    moments.nothing = moment(new Date(now - 24 * HOUR));
    moments.setUp = moment(new Date(now - 2.5 * HOUR));
    moments.edited = moment(new Date(now - 1.5 * HOUR));
    moments.later = moment(new Date(now - 0.5 * HOUR));
    present = moment(new Date(now + 60_000));

    // The read models again from the moved events, so that their versions carry the moved times.
    personalData = await openPersonalData(product.dataDir, product.databaseUrl);
    store = personalData.protect(await PostgresEventStore.connect(product.databaseUrl));
    pool = new pg.Pool({ connectionString: product.databaseUrl, max: 4, options: '-c search_path=read' });
    const { failures } = await rebuildReadModels(pool, store, projections);
    expect(failures).toEqual([]);

    // Now, on the live read models: the family that left and the tutor who left are erased.
    await api.post(`/api/clients/erase/${ids.bea}`, { reason: 'Asked by the family', confirm: true });
    await api.post(`/api/tutors/erase/${ids.ned}`, { reason: 'Asked by the tutor', confirm: true });
    // A query app of the product's own code whose views, while `replaying` is set, run their queries there.
    queryApp = await buildQueryApp({
      databaseUrl: product.databaseUrl,
      jwtSecret: JWT_SECRET,
      store,
      onRoute: (route) => {
        if (route.method !== 'GET' || !AS_OF_VIEWS[route.url]) return;
        const handler = route.handler;
        route.handler = function onReplay(request, reply) {
          const past = replaying;
          return past
            ? withPastConnection(past, async () => handler.call(this, request, reply))
            : handler.call(this, request, reply);
        };
      },
    });
  });
  afterAll(async () => {
    await queryApp?.close();
    await store?.close();
    await pool?.end();
    await personalData?.close();
    await product?.dispose();
  });

  const get = (path: string, asOf: string, token = auditor) =>
    product.api(token).get(`${path}${path.includes('?') ? '&' : '?'}asOf=${asOf}`);

  /** Every view, in the variants the screens ask. */
  const views = () => [
    `/api/lessons?year=2025&month=2&tutorId=${ids.tutor}`,
    '/api/lessons?year=2025&month=2',
    '/api/lessons?year=2025&month=2&limit=1',
    `/api/tutors/engagement/${ids.tutor}/${ids.engagement}`,
    `/api/tutors/engagement/${ids.tutor}/${ids.other}`,
    '/api/invoices?year=2025&month=2',
    '/api/invoices/?year=2025',
    `/api/invoices?year=2025&tutorId=${ids.tutor}`,
    '/api/reports/invoiceStatus?year=2025&month=2',
  ];

  /** Status and body, as the product answers (through its front door). */
  const answer = async (path: string) => {
    const response = await fetch(`${product.url}${path}`, { headers: { authorization: `Bearer ${auditor}` } });
    return { status: response.status, body: await response.json() };
  };

  /**
   * Runs `work` on a connection whose search path is a scratch schema holding the tables of the
   * versioned projections after every event `until` keeps, applied one by one by their handlers
   * (the old way of seeing the past: one transaction, rolled back).
   */
  async function replay<T>(until: (event: RecordedEvent) => boolean, work: (sql: pg.PoolClient) => Promise<T>) {
    const sql = await pool.connect();
    try {
      await sql.query('begin');
      await sql.query('create schema as_of_replay');
      await sql.query('set local search_path to as_of_replay');
      const wanted = new Set(versioned.flatMap((projection) => projection.migrations ?? []));
      for (const migration of migrations) if (wanted.has(migration.name)) await sql.query(migration.sql);
      for (const event of await store.readAll({ limit: 100_000 })) {
        if (!until(event)) continue;
        for (const projection of versioned) await handlerFor(projection, event.type)?.(sql, event);
      }
      return await work(sql);
    } finally {
      await sql.query('rollback').catch(() => {});
      sql.release();
    }
  }

  /** The live query of `path` on a replay of the events recorded up to `local`. */
  const replayed = (path: string, local: string) => {
    const until = agencyInstant(local, 'Europe/London').getTime();
    return replay(
      (event) => Date.parse(event.metadata.recordedAt) <= until,
      async (sql) => {
        replaying = { client: sql, sql: (text) => text };
        try {
          const response = await queryApp.inject({
            method: 'GET',
            url: path,
            headers: { authorization: `Bearer ${auditor}` },
          });
          return { status: response.statusCode, body: response.json() };
        } finally {
          replaying = undefined;
        }
      },
    );
  };

  it('shows an engagement period as it stood before its correction, and as corrected after', async () => {
    const path = `/api/tutors/engagement/${ids.tutor}/${ids.engagement}`;
    const past = await get(path, moments.setUp);
    expect(past.engagement.rate).toBe(30);
    expect(past.engagement.history.map((row: { rate: number }) => row.rate)).toEqual([30]);
    expect(past.engagement.studentName).toBe('Kim Past');
    expect(past.engagement.tutor.name).toBe('Tam Past');
    const later = await get(path, moments.edited);
    expect(later.engagement.rate).toBe(32);
    expect(later.engagement.studentName).toBe('Kim Past');
    const renamed = await get(path, moments.later);
    expect(renamed.engagement).toMatchObject({ studentName: 'Kit Past', tutor: { name: 'Tamsin Past' } });
    const other = `/api/tutors/engagement/${ids.tutor}/${ids.other}`;
    expect((await get(other, moments.edited)).engagement.history.map((row: { rate: number }) => row.rate)).toEqual([
      40,
    ]);
    const ended = (await get(other, moments.later)).engagement;
    expect(ended.history.map((row: { rate: number }) => row.rate)).toEqual([44, 40]);
    expect(ended.endDate).toBe('2025-03-31');
  });

  it("shows a lesson's old duration and amount before the change, a removed lesson until it went, and the month's lock", async () => {
    const path = `/api/lessons?year=2025&month=2&tutorId=${ids.tutor}`;
    const past = await get(path, moments.setUp);
    expect(past.lessons.map((lesson: { id: string }) => lesson.id)).toEqual([ids.lesson, ids.otherLesson, ids.gone]);
    expect(past.lessons[0]).toMatchObject({ id: ids.lesson, duration: 1, rate: 30, amount: 30, locked: false });
    const edited = await get(path, moments.edited);
    expect(edited.lessons.map((lesson: { id: string }) => lesson.id)).toEqual([ids.lesson, ids.otherLesson]);
    expect(edited.lessons[0]).toMatchObject({ id: ids.lesson, duration: 2, rate: 32, amount: 64, locked: true });
    const later = await get(path, moments.later);
    expect(later.lessons[1]).toMatchObject({ id: ids.otherLesson, duration: 1.5, amount: 60, locked: true });
  });

  it('shows the invoices list and the invoice status report as they stood then, a withdrawn invoice included', async () => {
    const list = '/api/invoices?year=2025&month=2';
    expect((await get(list, moments.setUp)).invoices).toEqual([]);
    const first = (await get(list, moments.edited)).invoices;
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({
      id: ids.invoice,
      tutorId: ids.tutor,
      earnings: 104,
      confirmed: false,
      void: false,
    });
    const later = (await get(list, moments.later)).invoices;
    expect(later.map((row: { void: boolean }) => row.void).sort()).toEqual([false, true]);
    expect(later.find((row: { void: boolean }) => !row.void)).toMatchObject({
      id: ids.invoice,
      earnings: 124,
      paid: 10,
      confirmed: true,
    });
    const report = '/api/reports/invoiceStatus?year=2025&month=2';
    const earningsOf = (answer: { groups: { tutors: { tutorId: string; earnings: number }[] }[] }) =>
      answer.groups.flatMap((group) => group.tutors).find((row) => row.tutorId === ids.tutor)?.earnings;
    expect(earningsOf(await get(report, moments.setUp))).toBe(110);
    expect(earningsOf(await get(report, moments.edited))).toBe(104);
    expect(earningsOf(await get(report, moments.later))).toBe(124);
  });

  it('reads the names of an erased family and of an erased tutor as "Erased" as of any moment, before the erasure too', async () => {
    const path = `/api/lessons?year=2025&month=2&tutorId=${ids.tutor}`;
    const report = '/api/reports/invoiceStatus?year=2025&month=2';
    type Report = { groups: { tutors: { tutorId: string; name: string }[] }[] };
    for (const local of [moments.setUp, moments.edited, moments.later]) {
      const students = (await get(path, local)).lessons.map((lesson: { student: string }) => lesson.student);
      expect(students, local).toContain('Erased Erased');
      expect(students.join(), local).not.toContain('Lou');
      const named = ((await get(report, local)) as Report).groups.flatMap((group) => group.tutors);
      expect(named.find((row) => row.tutorId === ids.ned)?.name, local).toBe('Erased Erased');
    }
  });

  it('answers as of the present exactly as the live views do', async () => {
    for (const path of views()) {
      expect(await get(path, present), path).toEqual(await product.api(auditor).get(path));
    }
  });

  it('answers as of each past moment exactly as the live query on a replay of the events recorded up to it', async () => {
    for (const local of Object.values(moments)) {
      for (const path of views()) {
        const asOf = await answer(`${path}${path.includes('?') ? '&' : '?'}asOf=${local}`);
        expect(asOf, `${path} as of ${local}`).toEqual(await replayed(path, local));
      }
    }
    // Not vacuous: before anything there is nothing, then there is.
    expect((await answer(`/api/lessons?year=2025&month=2&asOf=${moments.nothing}`)).body.lessons).toEqual([]);
    expect((await answer(`/api/tutors/engagement/${ids.tutor}/${ids.engagement}?asOf=${moments.nothing}`)).status).toBe(
      404,
    );
  });

  it('holds in every versioned table, at every position, the rows a replay of the events up to it gives', async () => {
    // The columns a past row has (those of the current table it stands for), without the versions' own.
    const META = ['removed', 'valid_from_commit', 'valid_from_prepare', 'recorded_at'];
    const valueColumns = async (table: VersionedTable) =>
      (await pool.query(`select * from (${rowsAt(table, START)}) v limit 0`)).fields
        .map((field) => field.name)
        .filter((name) => !META.includes(name))
        .map(quoteIdent);
    const tables = Object.keys(VERSIONED_TABLES) as VersionedTable[];
    const columns = new Map(
      await Promise.all(tables.map(async (table) => [table, await valueColumns(table)] as const)),
    );
    const rowsOf = async (sql: pg.ClientBase | pg.Pool, from: string, table: VersionedTable) =>
      (
        await sql.query(
          `select row_to_json(r)::text as row from (select ${columns.get(table)?.join(', ')} from ${from}) r order by 1`,
        )
      ).rows.map((row) => row.row);
    let compared = 0;
    await replay(
      () => false,
      async (sql) => {
        for (const event of await store.readAll({ limit: 100_000 })) {
          const handled = versioned.filter((projection) => handlerFor(projection, event.type));
          if (handled.length === 0) continue;
          for (const projection of handled) await handlerFor(projection, event.type)?.(sql, event);
          for (const table of tables) {
            const past = await rowsOf(pool, `(${rowsAt(table, event.position)}) v`, table);
            expect(past, `${table} at ${event.type} ${event.position.commit}/${event.position.prepare}`).toEqual(
              await rowsOf(sql, table, table),
            );
          }
          compared += 1;
        }
      },
    );
    expect(compared).toBeGreaterThan(20);
  });

  it('is rebuilt into the very rows the live projections wrote, versions included, after the live erasures', async () => {
    const { failures, differences } = await compareWithRebuild(pool, store, projections);
    expect(failures).toEqual([]);
    expect(differences).toEqual([]);
    // Not vacuous: the versions are compared too.
    const compared = await pool.query("select count(*)::int as n from read.tutor_versions where first_name = 'Erased'");
    expect(compared.rows[0].n).toBeGreaterThan(0);
  });

  it('maps a moment to the last position recorded at or before it', async () => {
    const events = await store.readAll({ limit: 100_000 });
    const tables = Object.keys(VERSIONED_TABLES) as VersionedTable[];
    // Whether an event wrote a version: its position is one a versioned table keeps.
    const sources = tables.flatMap((table) => VERSIONED_TABLES[table].moments);
    const wrote = async (event: RecordedEvent) =>
      (
        await pool.query(
          sources
            .map(({ table, commit, prepare }) => `select 1 from ${table} where (${commit}, ${prepare}) = ($1, $2)`)
            .join(' union all '),
          [event.position.commit.toString(), event.position.prepare.toString()],
        )
      ).rowCount;
    for (const local of Object.values(moments)) {
      const until = agencyInstant(local, 'Europe/London');
      let last: Position = { commit: 0n, prepare: 0n };
      for (const event of events) {
        if (Date.parse(event.metadata.recordedAt) <= until.getTime() && (await wrote(event))) last = event.position;
      }
      expect(await positionAt(pool, tables, until), local).toEqual(last);
    }
  });

  it('reads only versions: a view whose SQL names a table without them is refused, never mixed with the present', () => {
    const at = { commit: 5n, prepare: 7n };
    const tables = AS_OF_VIEWS['/api/lessons'] ?? [];
    const rewritten = sqlAsOf(
      `with after as (select id from lessons where id = $1)
       select l.id, lm.invoice_id from lessons l left join locked_months lm on lm.month = l.month
        where exists (select 1 from locked_months where tutor_id = $2) and l.id > (select id from after)
          and l.id in (select id from unnest($3::text[]) as x (id))`,
      tables,
      at,
    );
    expect(rewritten).not.toMatch(/\b(from|join)\s+locked_months\b/);
    // Every lessons named is the subquery of the rows current then (which reads the table itself).
    expect(rewritten.match(/\bfrom lessons\b/g)).toHaveLength(2);
    expect(rewritten.match(/from \(select id, tutor_id, month/g)).toHaveLength(2);
    expect(rewritten).toMatch(/\) l left join \(select \* from locked_month_versions/);
    expect(rewritten).toMatch(/\) as locked_months where tutor_id = \$2/);
    expect(() => sqlAsOf('select * from contacts', tables, at)).toThrow(/contacts/);
    expect(() => sqlAsOf('select * from invoices', tables, at)).toThrow(/invoices/);
  });

  it('is for the office: a tutor is refused, and a malformed moment is a bad request', async () => {
    const status = async (url: string, token: string) =>
      (await fetch(`${product.url}${url}`, { headers: { authorization: `Bearer ${token}` } })).status;
    expect(await status(`/api/lessons?year=2025&month=2&asOf=${moments.setUp}`, tutor)).toBe(403);
    expect(await status(`/api/lessons?year=2025&month=2&tutorId=${ids.tutor}&asOf=yesterday`, auditor)).toBe(400);
  });
});
