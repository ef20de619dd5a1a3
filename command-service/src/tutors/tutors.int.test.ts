import { randomUUID } from 'node:crypto';
import { type Delivered, startLoopbackSmtp } from '@agency/scripts/testing/loopback-smtp';
import { startTestProduct, TEST_ADMIN, type TestProduct } from '@agency/scripts/testing/test-product';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const PUBLIC_URL = 'https://agency.example.test';

const contact = {
  firstName: 'Jane',
  lastName: 'Smith',
  address: ['2 Mill Lane', '', 'Oxford', ''],
  postcode: 'OX2 6AA',
  email: 'jane.smith@example.com',
  phone: [
    { type: 'Mobile', number: '07700 900001' },
    { type: 'Home', number: '' },
  ],
};

describe('tutors, activation and password reset (real PostgreSQL, real SMTP on loopback)', () => {
  let product: TestProduct;
  let smtp: Awaited<ReturnType<typeof startLoopbackSmtp>>;
  let db: pg.Pool;
  let admin: string;
  let inbox: Delivered[];

  beforeAll(async () => {
    smtp = await startLoopbackSmtp({ decoded: true });
    inbox = smtp.inbox;
    product = await startTestProduct({ smtpUrl: smtp.url, publicUrl: PUBLIC_URL });
    db = new pg.Pool({ connectionString: product.databaseUrl });
    admin = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
  });
  afterAll(async () => {
    await db?.end();
    await product?.dispose();
    await smtp?.close();
  });

  const post = (url: string, payload: object = {}, token = admin, remoteAddress = '127.0.0.1') =>
    product.command.app.inject({
      method: 'POST',
      url,
      payload,
      remoteAddress,
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
  const get = async (url: string, token = admin) => {
    const response = await fetch(`${product.url}${url}`, { headers: { authorization: `Bearer ${token}` } });
    return { status: response.status, body: await response.json() };
  };
  const countEvents = async () => Number((await db.query('select count(*) from es.events')).rows[0].count);
  const mailTo = async (address: string, after: number) => {
    // The mail reactor sends it a moment after the request: room for a busy machine.
    await expect
      .poll(() => inbox.slice(after).filter((m) => m.to.includes(address)).length, { timeout: 60_000 })
      .toBeGreaterThan(0);
    return inbox
      .slice(after)
      .filter((m) => m.to.includes(address))
      .at(-1)!;
  };
  const linkIn = (mail: Delivered, path: string) => {
    const match = new RegExp(`${PUBLIC_URL}/${path}/([A-Za-z0-9_-]+)`).exec(mail.raw);
    expect(match, `a ${path} link in the mail`).not.toBeNull();
    return match![1]!;
  };
  const newTutor = async (first: string, last: string, email = `${first}.${last}@example.com`.toLowerCase()) => {
    const suggestion = (await post('/api/tutors/suggest', { firstName: first, lastName: last })).json();
    const response = await post('/api/tutors/contact', {
      commandId: randomUUID(),
      contact: { ...contact, firstName: first, lastName: last, email },
      tutor: { username: suggestion.username, invoicePrefix: suggestion.prefix },
    });
    expect(response.statusCode).toBe(200);
    return response.json().tutor as { id: string; username: string; invoicePrefix: string };
  };

  it('refuses a bad tutor body with 400 and every field message, writing nothing', async () => {
    const before = await countEvents();
    const response = await post('/api/tutors/contact', { contact: { firstName: ' ' }, tutor: { username: 'a b' } });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({
      code: 'invalid_input',
      fields: {
        'contact.firstName': 'First name is required',
        'contact.lastName': 'Last name is required',
        'contact.postcode': 'Postcode is required',
        'contact.email': 'Email is required',
        'tutor.username': 'Username may hold only letters, digits, dots, dashes and underscores',
        'tutor.invoicePrefix': 'Invoice Prefix is required',
      },
    });
    expect(await countEvents()).toBe(before);
    expect((await post('/api/tutors/suggest', { firstName: 'A' })).json().error.fields.lastName).toBe(
      'Last name is required',
    );
  });

  it('suggests names, and keeps username and prefix unique among all tutors, past ones included', async () => {
    const first = (await post('/api/tutors/suggest', { firstName: 'Jane', lastName: 'Smith' })).json();
    expect(first).toMatchObject({ username: 'jsmith', prefix: 'JS' });
    const jane = await newTutor('Jane', 'Smith', 'jane.smith@example.com');
    expect(jane).toMatchObject({ username: 'jsmith', invoicePrefix: 'JS' });

    // A terminated tutor still holds the names.
    expect((await post(`/api/tutors/active/${jane.id}`, { id: jane.id, active: false })).statusCode).toBe(200);
    const next = (await post('/api/tutors/suggest', { firstName: 'Jack', lastName: 'Smith' })).json();
    expect(next).toMatchObject({ username: 'jacksmith', prefix: 'JSM' });

    const before = await countEvents();
    const clash = await post('/api/tutors/contact', {
      contact,
      tutor: { username: 'JSmith', invoicePrefix: 'js' },
    });
    expect(clash.statusCode).toBe(409);
    expect(clash.json().error.fields).toEqual({
      'tutor.username': 'That username is already taken',
      'tutor.invoicePrefix': 'That invoice prefix is already taken',
    });
    // The admin's login name is taken too.
    const adminName = await post('/api/tutors/contact', { contact, tutor: { username: 'admin', invoicePrefix: 'ZZ' } });
    expect(adminName.json().error.fields).toEqual({ 'tutor.username': 'That username is already taken' });
    expect(await countEvents()).toBe(before);
    // Two concurrent saves of one new name: exactly one wins.
    const both = await Promise.all(
      ['A', 'B'].map((n) =>
        post('/api/tutors/contact', { contact, tutor: { username: 'race', invoicePrefix: `R${n}` } }),
      ),
    );
    expect(both.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    expect((await post(`/api/tutors/active/${jane.id}`, { id: jane.id, active: true })).statusCode).toBe(200);
  });

  it('lists tutors (inactive only when asked) and shows a tutor with the spec fields', async () => {
    const kim = await newTutor('Kim', 'Lowe');
    await post(`/api/tutors/active/${kim.id}`, { id: kim.id, active: false, endDate: '2030-01-01' });
    const active = await get('/api/tutors?includeInactive=N');
    expect(active.status).toBe(200);
    expect(active.body.tutors.map((t: { id: string }) => t.id)).not.toContain(kim.id);
    const all = await get('/api/tutors?includeInactive=Y');
    expect(all.body.tutors.find((t: { id: string }) => t.id === kim.id)).toEqual({
      id: kim.id,
      name: 'Kim Lowe',
      firstName: 'Kim',
      lastName: 'Lowe',
      address: '2 Mill Lane, Oxford, OX2 6AA',
      phone: '07700 900001',
      email: 'kim.lowe@example.com',
      active: false,
      startDate: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      endDate: '2030-01-01',
    });
    const detail = await get(`/api/tutors/${kim.id}`);
    expect(detail.body.tutor).toMatchObject({
      id: kim.id,
      name: 'Kim Lowe',
      username: 'klowe',
      invoicePrefix: 'KL',
      active: false,
      endDate: '2030-01-01',
      accountActive: false,
      activationSent: false,
      currentStudents: [],
      formerStudents: [],
      contact: {
        firstName: 'Kim',
        address: ['2 Mill Lane', 'Oxford'],
        phone: [{ type: 'Mobile', number: '07700 900001' }],
      },
    });
    expect((await get(`/api/tutors/${randomUUID()}`)).status).toBe(404);
  });

  it("edits a tutor's contact through the contact form's calls, as the tutor detail's edit link does", async () => {
    const lee = await newTutor('Lee', 'Park');
    const { tutor } = (await get(`/api/tutors/${lee.id}`)).body;
    const read = await get(`/api/contacts/${tutor.contact.id}`);
    expect(read.body.contact).toMatchObject({ id: tutor.contact.id, tutorId: lee.id, firstName: 'Lee' });
    const saved = await post(`/api/contacts/${tutor.contact.id}`, { ...contact, firstName: 'Leigh', lastName: 'Park' });
    expect(saved.statusCode).toBe(200);
    expect(saved.json().contact).toMatchObject({ tutorId: lee.id, firstName: 'Leigh' });
    expect((await get(`/api/tutors/${lee.id}`)).body.tutor).toMatchObject({ name: 'Leigh Park', username: 'lpark' });
  });

  it('refuses to terminate a tutor with current students, with a clear message', async () => {
    const tom = await newTutor('Tom', 'Hardy');
    // An engagement on the tutor's roster (its own stream not written yet: a start in progress).
    const { store } = product.command.deps;
    const engagementId = randomUUID();
    const metadata = {
      userId: 'test',
      role: 'admin',
      commandId: randomUUID(),
      correlationId: 'test',
      causationId: 'test',
    };
    await store.appendToStream(
      `tutor-${tom.id}`,
      [{ type: 'TutorEngagementStarted', data: { tutorId: tom.id, engagementId, studentId: 'c' }, metadata }],
      { expectedRevision: 'any' },
    );
    const refused = await post(`/api/tutors/active/${tom.id}`, { id: tom.id, active: false });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.message).toMatch(/still has 1 current student\b/);
    await store.appendToStream(
      `tutor-${tom.id}`,
      [{ type: 'TutorEngagementEnded', data: { tutorId: tom.id, engagementId }, metadata }],
      { expectedRevision: 'any' },
    );
    const done = await post(`/api/tutors/active/${tom.id}`, { id: tom.id, active: false });
    expect(done.json().tutor).toMatchObject({ active: false, endDate: expect.stringMatching(/^\d{4}-/) });
    const again = await post(`/api/tutors/active/${tom.id}`, { id: tom.id, active: false });
    expect(again.json().error.message).toBe('This tutor is already inactive.');
    const back = await post(`/api/tutors/active/${tom.id}`, { id: tom.id, active: true, startDate: '2099-01-01' });
    expect(back.json().tutor).toEqual({ id: tom.id, active: true, startDate: '2099-01-01', endDate: null });
  });

  it('e-mails an activation link; the tutor activates once, is signed in, and the code is never stored or recorded', async () => {
    const amy = await newTutor('Amy', 'Pond');
    const before = inbox.length;
    const sent = await post(`/api/tutors/activate/${amy.id}`);
    expect(sent.statusCode).toBe(200);
    const mail = await mailTo('amy.pond@example.com', before);
    expect(mail.raw).toMatch(/Content-Type: text\/plain/);
    expect(mail.raw).toMatch(/Content-Type: text\/html/);
    expect(mail.raw).toContain('Your username is: apond');
    const code = linkIn(mail, 'activate');
    expect(Buffer.from(code, 'base64url').length).toBeGreaterThanOrEqual(16);
    expect((await get(`/api/tutors/${amy.id}`)).body.tutor).toMatchObject({
      activationSent: true,
      accountActive: false,
    });
    expect((await post(`/api/tutors/activate/${amy.id}`)).json().error.message).toMatch(/already been sent/);

    const activate = (body: object) =>
      product.command.app.inject({ method: 'POST', url: '/auth/local/activate', payload: body });
    const short = await activate({ activationCode: code, username: 'apond', password: 'short' });
    expect(short.statusCode).toBe(400);
    expect(short.json().error.fields.password).toBe('Password must be at least 7 characters');
    const wrongName = await activate({ activationCode: code, username: 'someone', password: 'long-enough' });
    expect(wrongName.statusCode).toBe(400);
    expect(wrongName.json().error.fields.username).toBe('Please enter the username given in your activation email');

    const ok = await activate({ activationCode: code, username: 'apond', password: 'amy-password' });
    expect(ok.statusCode).toBe(200);
    const token = ok.cookies.find((c) => c.name === 'token')?.value;
    expect(token).toBeTruthy();
    const me = await product.command.app.inject({ method: 'GET', url: '/auth/local/me', cookies: { token: token! } });
    expect(me.json().user).toMatchObject({ username: 'apond', role: 'tutor', tutorId: amy.id, name: 'Amy Pond' });
    expect((await product.api(await product.login('apond', 'amy-password')).get('/auth/local/me')).user.username).toBe(
      'apond',
    );

    const reused = await activate({ activationCode: code, username: 'apond', password: 'amy-password' });
    expect(reused.statusCode).toBe(410);
    expect(reused.json().error.message).toMatch(/already been used/);
    const unknown = await activate({ activationCode: 'nope', username: 'apond', password: 'amy-password' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.message).toMatch(/not valid/);
    expect((await get(`/api/tutors/${amy.id}`)).body.tutor).toMatchObject({
      accountActive: true,
      activationSent: false,
      accountRole: 'tutor',
    });
    // The tutor may read their own record, not the list or another tutor.
    expect((await get(`/api/tutors/${amy.id}`, token)).status).toBe(200);
    expect((await get('/api/tutors?includeInactive=N', token)).status).toBe(403);

    const everything = await db.query(`select string_agg(data::text || metadata::text, ' ') as text from es.events`);
    const reads = await db.query(`select string_agg(row_to_json(t)::text, ' ') as text from read.tutors t`);
    for (const text of [everything.rows[0].text, reads.rows[0].text]) {
      expect(text).not.toContain(code);
      expect(text).not.toContain('amy-password');
    }
    const stored = await db.query('select code_hash from auth.activation_codes where tutor_id = $1', [amy.id]);
    expect(stored.rows[0].code_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses an expired activation code with a clear message', async () => {
    const eve = await newTutor('Eve', 'Moss');
    const before = inbox.length;
    await post(`/api/tutors/activate/${eve.id}`);
    const code = linkIn(await mailTo('eve.moss@example.com', before), 'activate');
    await db.query(`update auth.activation_codes set expires_at = now() - interval '1 minute' where tutor_id = $1`, [
      eve.id,
    ]);
    const expired = await product.command.app.inject({
      method: 'POST',
      url: '/auth/local/activate',
      payload: { activationCode: code, username: 'emoss', password: 'eve-password' },
    });
    expect(expired.statusCode).toBe(410);
    expect(expired.json().error.message).toMatch(/expired/);
  });

  it('gives and takes back the partner role of a tutor account', async () => {
    const tutors = (await get('/api/tutors?includeInactive=Y')).body.tutors as { id: string; name: string }[];
    const amy = tutors.find((t) => t.name === 'Amy Pond')!;
    const notYet = tutors.find((t) => t.name === 'Eve Moss')!;
    expect((await post(`/api/tutors/partner/${notYet.id}`, { partner: true })).statusCode).toBe(409);
    expect((await post(`/api/tutors/partner/${amy.id}`, { partner: true })).statusCode).toBe(200);
    const partner = await product.command.app.inject({
      method: 'POST',
      url: '/auth/local',
      payload: { username: 'apond', password: 'amy-password' },
    });
    expect(partner.json().user).toMatchObject({ role: 'partner', tutorId: amy.id });
    expect((await get(`/api/tutors/${amy.id}`)).body.tutor.accountRole).toBe('partner');
    expect((await get('/api/tutors?includeInactive=N', partner.json().token)).status).toBe(200);
    await post(`/api/tutors/partner/${amy.id}`, { partner: false });
    expect((await get(`/api/tutors/${amy.id}`)).body.tutor.accountRole).toBe('tutor');
  });

  it('resets a password through an e-mailed single-use link, by username or e-mail address', async () => {
    const reset = (username: string, remoteAddress = '10.0.0.1') =>
      post('/auth/local/reset', { username }, '', remoteAddress);
    const before = inbox.length;
    const known = await reset('APond');
    expect(known.statusCode).toBe(200);
    expect(known.json()).toEqual({ success: true });
    const unknown = await reset('nobody-at-all');
    expect(unknown.statusCode).toBe(200);
    expect(unknown.json()).toEqual(known.json());
    const mail = await mailTo('amy.pond@example.com', before);
    expect(mail.raw).toMatch(/Content-Type: text\/html/);
    const token = linkIn(mail, 'reset');

    const setPassword = (body: object) =>
      product.command.app.inject({ method: 'POST', url: '/auth/local/password', payload: body });
    expect((await setPassword({ resetToken: token, password: 'short' })).statusCode).toBe(400);
    const done = await setPassword({ resetToken: token, password: 'amy-new-password' });
    expect(done.statusCode).toBe(200);
    expect(done.cookies.find((c) => c.name === 'token')?.value).toBeTruthy();
    expect(
      (await product.api(await product.login('apond', 'amy-new-password')).get('/auth/local/me')).user.username,
    ).toBe('apond');
    await expect(product.login('apond', 'amy-password')).rejects.toThrow(/: 401 /);
    const again = await setPassword({ resetToken: token, password: 'amy-other-password' });
    expect(again.statusCode).toBe(410);
    expect(again.json().error.message).toMatch(/already been used/);
    expect((await setPassword({ resetToken: 'made-up', password: 'whatever1' })).statusCode).toBe(404);

    const byEmail = inbox.length;
    expect((await reset('amy.pond@example.com', '10.0.0.2')).statusCode).toBe(200);
    await mailTo('amy.pond@example.com', byEmail);
    expect((await post('/auth/local/reset', {}, '')).json().error.fields.username).toBe('Username is required');
  });

  it('answers too many attempts after repeated requests for one account, or from one address', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      statuses.push((await post('/auth/local/reset', { username: 'jsmith' }, '', `10.1.0.${i}`)).statusCode);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    const limited = await post('/auth/local/reset', { username: 'jsmith' }, '', '10.1.0.9');
    expect(limited.json().error).toMatchObject({
      code: 'too_many_attempts',
      message:
        'There were too many attempts to reset your password. Please contact the admin to have your password reset.',
    });
    // Unknown names are limited the same way (no enumeration through the limit).
    const unknown: number[] = [];
    for (let i = 0; i < 4; i++) {
      unknown.push((await post('/auth/local/reset', { username: 'ghost' }, '', `10.2.0.${i}`)).statusCode);
    }
    expect(unknown).toEqual([200, 200, 200, 429]);
    const fromOneAddress: number[] = [];
    for (let i = 0; i < 11; i++) {
      fromOneAddress.push((await post('/auth/local/reset', { username: `name${i}` }, '', '10.3.0.1')).statusCode);
    }
    expect(fromOneAddress.at(-1)).toBe(429);
    expect(fromOneAddress.slice(0, 10).every((s) => s === 200)).toBe(true);
  });

  it('keeps tutors to admins: a tutor token may not create one or ask for suggestions', async () => {
    const tutorToken = await product.command.signSession({ id: 'u', username: 't', role: 'tutor', tutorId: 'x' });
    expect(
      (await post('/api/tutors/contact', { contact, tutor: { username: 'zz', invoicePrefix: 'ZZ' } }, tutorToken))
        .statusCode,
    ).toBe(403);
    expect((await post('/api/tutors/suggest', { firstName: 'A', lastName: 'B' }, tutorToken)).statusCode).toBe(403);
    expect((await post('/api/tutors/suggest', { firstName: 'A', lastName: 'B' }, '')).statusCode).toBe(401);
  });

  it('a terminated tutor can no longer sign in, and an open session ends at the next keepalive', async () => {
    const tom = await newTutor('Tom', 'Ended');
    const login = await post('/api/users', {
      username: 'tom.ended.login',
      password: 'tom-password',
      role: 'tutor',
      tutorId: tom.id,
      name: 'Tom Ended',
    });
    expect(login.statusCode).toBe(200);
    const session = await product.login('tom.ended.login', 'tom-password');
    expect((await post(`/api/tutors/active/${tom.id}`, { id: tom.id, active: false })).statusCode).toBe(200);
    const refused = await post('/auth/local', { username: 'tom.ended.login', password: 'tom-password' }, '');
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.code).toBe('account_ended');
    expect((await post('/auth/local/keepalive', {}, session)).statusCode).toBe(401);
    expect((await post(`/api/tutors/active/${tom.id}`, { id: tom.id, active: true })).statusCode).toBe(200);
    expect((await post('/auth/local', { username: 'tom.ended.login', password: 'tom-password' }, '')).statusCode).toBe(
      200,
    );
  });
});
