import { todayIn } from '@agency/domain';
import { startTestProduct, TEST_ADMIN, type TestProduct } from '@agency/scripts/testing/test-product';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** The activity log: the commands of a period, grouped from their events, read from the event store. */
describe('activity log (real PostgreSQL)', () => {
  let product: TestProduct;
  let admin: string;
  let auditor: string;
  let tutor: string;
  let auditorId = '';
  let tutorId = '';
  const today = todayIn('Europe/London', new Date());

  const fetchAs = (url: string, token: string) =>
    fetch(`${product.url}${url}`, { headers: { authorization: `Bearer ${token}` } });

  beforeAll(async () => {
    product = await startTestProduct();
    admin = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
    const api = product.api(admin);
    const made = await api.post('/api/tutors/contact', {
      contact: {
        firstName: 'Lou',
        lastName: 'Log',
        address: ['1 Ledger Lane'],
        postcode: 'OX1 1AA',
        email: 'lou.log@example.com',
        phone: [{ type: 'Mobile', number: '07700 900001' }],
      },
      tutor: { username: 'lou.log', invoicePrefix: 'LL', startDate: '2024-09-01' },
    });
    tutorId = made.tutor.id;
    const password = 'activity-Log-pass-42';
    auditorId = (await api.post('/api/users', { username: 'audie', password, role: 'auditor', name: 'Audie Log' })).user
      .id;
    auditor = await product.login('audie', password);
    await api.post('/api/users', { username: 'lou', password, role: 'tutor', tutorId, name: 'Lou Log' });
    tutor = await product.login('lou', password);
  });
  afterAll(() => product?.dispose());

  it("lists the period's commands: who, when, what in words, on which entity", async () => {
    const answer = await product.api(auditor).get(`/api/activity?from=${today}&to=${today}`);
    const added = answer.commands.find((entry: { streams: string[] }) => entry.streams.includes(`tutor-${tutorId}`));
    expect(added).toMatchObject({
      who: { name: 'Administrator', role: 'admin' },
      streams: [`tutor-${tutorId}`],
      commandId: expect.any(String),
    });
    expect(added.when).toMatch(new RegExp(`^${today} \\d{2}:\\d{2}:\\d{2}$`));
    expect(added.what.join(' ')).toMatch(/Lou|tutor/i);
    const ids = answer.commands.map((entry: { commandId: string }) => entry.commandId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(answer.users.map((user: { name: string }) => user.name)).toEqual(
      expect.arrayContaining(['Administrator', 'Audie Log', 'Lou Log']),
    );
  });

  it('keeps to the period and to one user when asked', async () => {
    const yesterday = new Date(`${today}T12:00:00Z`);
    yesterday.setUTCDate(yesterday.getUTCDate() - 1);
    const before = yesterday.toISOString().slice(0, 10);
    expect((await product.api(admin).get(`/api/activity?from=${before}&to=${before}`)).commands).toEqual([]);
    const adminId = (await product.api(admin).get('/api/users/me')).user.id;
    const mine = await product.api(admin).get(`/api/activity?from=${today}&to=${today}&userId=${adminId}`);
    expect(mine.commands.length).toBeGreaterThan(0);
    expect(mine.commands.every((entry: { who: { userId: string } }) => entry.who.userId === adminId)).toBe(true);
    const none = await product.api(admin).get(`/api/activity?from=${today}&to=${today}&userId=${auditorId}`);
    expect(none.commands).toEqual([]);
  });

  it('answers CSV with a header row and every field quoted', async () => {
    const response = await fetchAs(`/api/activity?from=${today}&to=${today}&format=csv`, auditor);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/csv/);
    const lines = (await response.text()).trim().split('\r\n');
    expect(lines[0]).toBe('"When","Who","Role","Entity","What","Command"');
    const row = lines.find((line) => line.includes(`"tutor-${tutorId}"`));
    expect(row).toMatch(new RegExp(`^"${today} [0-9:]+","Administrator","admin","tutor-${tutorId}",".+","[^"]+"$`));
  });

  it('is for admins and auditors, and refuses a period that ends before it starts', async () => {
    expect((await fetchAs(`/api/activity?from=${today}&to=${today}`, tutor)).status).toBe(403);
    expect((await fetchAs(`/api/activity?from=${today}&to=2000-01-01`, admin)).status).toBe(400);
  });
});
