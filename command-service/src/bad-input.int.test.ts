import { startTestProduct, TEST_ADMIN, type TestProduct } from '@agency/scripts/testing/test-product';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** Bodies a careless or hostile client sends: none of them may cause a 500 or write anything. */
const BAD_BODIES: { label: string; payload: string; contentType?: string }[] = [
  { label: 'not JSON', payload: '{"firstName": ' },
  { label: 'a JSON string', payload: '"hello"' },
  { label: 'a JSON array', payload: '[1, 2, 3]' },
  { label: 'null', payload: 'null' },
  { label: 'an empty object', payload: '{}' },
  { label: 'wrong types everywhere', payload: JSON.stringify(WRONG_TYPES()) },
  { label: 'form-encoded', payload: 'a=1&b=2', contentType: 'application/x-www-form-urlencoded' },
  {
    // Valid in every other way, so only the NUL itself can stop it before PostgreSQL does.
    label: 'a NUL inside a valid contact',
    payload: JSON.stringify({
      firstName: 'Ann\u0000',
      lastName: 'Lee',
      address: ['1 Road'],
      postcode: 'OX1 1AA',
      email: 'ann@example.com',
      phone: [{ type: 'Home', number: '0100' }],
    }),
  },
];

const BODYLESS = ['/auth/local/keepalive', '/auth/local/logout'];

function WRONG_TYPES() {
  const junk = { $gt: '' };
  return {
    id: 42,
    tutorId: ['x'],
    clientId: junk,
    studentId: null,
    engagementId: true,
    contact: 'x',
    tutor: 7,
    lesson: [],
    firstName: { a: 1 },
    lastName: 3,
    address: 'one line',
    phone: 'none',
    dob: '2020-13-45',
    date: 'yesterday',
    startDate: '31/12/2020',
    rate: 'lots',
    commissionPct: -5,
    partnerPct: 900,
    duration: 'long',
    amount: '1e999',
    year: 'last',
    month: 13,
    active: 'yes',
    subjects: 'Maths',
    username: '',
    password: 1,
    role: 'emperor',
    activationCode: {},
    resetToken: [],
    commandId: 'not-a-uuid',
  };
}

/** Full paths from Fastify's printed route tree, where each line adds a segment to its parent's path. */
function postRoutes(tree: string) {
  const found: { method: string; url: string }[] = [];
  const stack: string[] = [];
  for (const line of tree.split('\n')) {
    const match = /^([│ ]*)[├└]── (\S+)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) continue;
    const depth = (match[1] ?? '').length / 4;
    stack.length = depth;
    stack.push(match[2] ?? '');
    if (match[3]?.includes('POST')) found.push({ method: 'POST', url: stack.join('') });
  }
  return found;
}

describe('bad input on every route answers 4xx with an error body and writes nothing', () => {
  let product: TestProduct;
  let db: pg.Pool;
  let token: string;
  const routes: { method: string; url: string }[] = [];

  beforeAll(async () => {
    product = await startTestProduct();
    db = new pg.Pool({ connectionString: product.databaseUrl });
    token = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
    routes.push(...postRoutes(product.command.app.printRoutes({ method: 'POST', commonPrefix: false })));
  });
  afterAll(async () => {
    await db?.end();
    await product?.dispose();
  });

  const countEvents = async () => Number((await db.query('select count(*) from es.events')).rows[0].count);
  const concrete = (url: string) => url.replace(/:(\w+)/g, (_, name) => (name === 'id' ? 'not-an-id' : `bad-${name}`));

  it('finds the command routes to try', () => {
    const urls = routes.map((r) => r.url);
    for (const expected of [
      '/api/clients/contact',
      '/api/tutors/engagement',
      '/api/lessons/lesson',
      '/api/invoices/save',
      '/auth/local',
    ]) {
      expect(urls).toContain(expected);
    }
  });

  it('every POST route refuses every bad body with a 4xx error body, writing nothing', async () => {
    const before = await countEvents();
    const failures: string[] = [];
    for (const route of routes) {
      for (const body of BAD_BODIES) {
        const response = await product.command.app.inject({
          method: 'POST',
          url: concrete(route.url),
          payload: body.payload,
          headers: { 'content-type': body.contentType ?? 'application/json', authorization: `Bearer ${token}` },
        });
        const answer = response.json() as { error?: { code?: string; message?: string } };
        const refused =
          response.statusCode >= 400 &&
          response.statusCode < 500 &&
          Boolean(answer.error?.code && answer.error.message);
        // These two take no body at all, so a well-formed one is rightly ignored.
        const ignored = BODYLESS.includes(route.url) && response.statusCode === 200 && body.label !== 'not JSON';
        const ok = refused || ignored;
        if (!ok)
          failures.push(`${route.url} with ${body.label}: ${response.statusCode} ${response.body.slice(0, 200)}`);
      }
    }
    expect(failures).toEqual([]);
    expect(await countEvents()).toBe(before);
  });

  it('GET routes with nonsense parameters answer 4xx or an empty answer, never a 500', async () => {
    const urls = [
      '/api/clients?includeInactive=maybe&tutor=%00',
      '/api/clients/%27%3B%20drop%20table/children',
      '/api/tutors?includeInactive=%7B%7D',
      '/api/tutors/engagement/x/y',
      '/api/tutors/engagement/x/y/on/not-a-date',
      '/api/lessons?year=abc&month=99',
      '/api/lessons/timesheet?from=2025-02-30&to=x&month=2025-13&tutorId=',
      '/api/invoices/?year=-1&month=0',
      '/api/invoices/doc/..%2F..%2Fetc%2Fpasswd',
      '/api/reports/invoiceStatus?year=1e9&month=NaN',
      '/api/reports/nonsense',
    ];
    const failures: string[] = [];
    for (const url of urls) {
      const response = await fetch(`${product.url}${url}`, { headers: { authorization: `Bearer ${token}` } });
      if (response.status >= 500) failures.push(`${url}: ${response.status} ${(await response.text()).slice(0, 200)}`);
    }
    expect(failures).toEqual([]);
  });
});
