import { randomUUID } from 'node:crypto';
import { type ImportAnswer, importAnswer, LIMITS, subjectOptions } from '@agency/contracts';
import { injectFaults, useProductWithFaults } from '@agency/scripts/testing/product-with-faults';
import { TEST_ADMIN, type TestProduct } from '@agency/scripts/testing/test-product';
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { onRacePoint } from '../race-points';
import { childIdOf, contactIdOf } from './family-rows';
import { idForKey } from './import-rows';

/**
 * CSV import (docs/import.md) against the whole product: each kind, a dry run that writes
 * nothing, a re-run that adds nothing, the spreadsheet quirks, a bad row among good ones, and a
 * run cut short then retried.
 */
describe('CSV import of families, tutors and engagements (real PostgreSQL)', () => {
  let product: TestProduct;
  let db: pg.Pool;
  let admin: string;
  useProductWithFaults((started) => {
    ({ product, db, admin } = started);
  });

  const send = (payload: object, token = admin) =>
    product.command.app.inject({
      method: 'POST',
      url: '/api/import',
      payload,
      headers: { authorization: `Bearer ${token}` },
    });
  const importCsv = async (kind: string, csv: string, options: object = {}): Promise<ImportAnswer> => {
    const response = await send({ kind, csv, ...options });
    expect(response.statusCode, response.body).toBe(200);
    return importAnswer.parse(response.json());
  };
  const get = async (url: string) => {
    const response = await fetch(`${product.url}${url}`, { headers: { authorization: `Bearer ${admin}` } });
    expect(response.status, url).toBe(200);
    return response.json();
  };
  const eventCount = async () => Number((await db.query('select count(*) as n from es.events')).rows[0].n);
  const outcomes = (answer: ImportAnswer) => answer.rows.map(({ row, outcome }) => [row, outcome]);

  // A spreadsheet saved by Excel in much of Europe: a byte-order mark, `;` between fields, a quoted
  // address with a new line in it, dates in both forms, headers as people type them.
  const families = [
    '\uFEFFReference;First Name;Last Name;Email;Phone;Address 1;Address 2;Postcode;Child 1 First Name;Child 1 DOB;Child 2 First Name;Child 2 Last Name;Child 2 DOB',
    'F1;Jane;Smith;jane@example.com;07700 900001;"Flat 2\nMill House";Oxford;OX2 6AA;Alice;14/03/2012;Tom;Smith-Jones;2014-09-01',
    'F2;Raj;Patel;raj@example.com;07700 900002;"1 High Street; Top floor";Oxford;OX1 1AA;Maya;1/2/2013;;;',
    'F3;No;Email;;07700 900003;3 Road;Oxford;OX1 3AA;;;;;',
  ].join('\r\n');

  it('imports families: a dry run writes nothing, the real run creates them, a re-run changes nothing', async () => {
    const before = await eventCount();
    const dry = await importCsv('families', families, { dryRun: true });
    expect(outcomes(dry)).toEqual([
      [2, 'create'],
      [3, 'create'],
      [4, 'refused'],
    ]);
    expect(dry.rows[2]).toMatchObject({ key: 'F3', fields: { email: expect.any(String) } });
    expect(dry.summary).toEqual({ rows: 3, create: 2, update: 0, unchanged: 0, refused: 1 });
    expect(await eventCount()).toBe(before);

    const real = await importCsv('families', families);
    // The bad row does not stop the good ones: it is refused with its row number and reason.
    expect(outcomes(real)).toEqual(outcomes(dry));
    expect(real.rows[2]?.reason).toMatch(/email/i);
    const jane = idForKey('families', 'F1');
    expect(real.rows[0]?.id).toBe(jane);
    const { contact } = await get(`/api/contacts/${contactIdOf(jane)}`);
    expect(contact).toMatchObject({
      firstName: 'Jane',
      address: ['Flat 2\nMill House', 'Oxford'],
      postcode: 'OX2 6AA',
      email: 'jane@example.com',
    });
    const { children } = await get(`/api/clients/${jane}/children`);
    expect(
      children.map((child: { firstName: string; lastName: string; dob: string }) => [
        child.firstName,
        child.lastName,
        child.dob,
      ]),
    ).toEqual(
      expect.arrayContaining([
        ['Alice', 'Smith', '2012-03-14'],
        ['Tom', 'Smith-Jones', '2014-09-01'],
      ]),
    );
    const raj = await get(`/api/contacts/${contactIdOf(idForKey('families', 'F2'))}`);
    expect(raj.contact.address).toEqual(['1 High Street; Top floor', 'Oxford']);

    const written = await eventCount();
    const again = await importCsv('families', families);
    expect(outcomes(again)).toEqual([
      [2, 'unchanged'],
      [3, 'unchanged'],
      [4, 'refused'],
    ]);
    expect(await eventCount()).toBe(written);

    // A changed cell is an update of that family only, said first by a dry run.
    const moved = families.replace('jane@example.com', 'jane.smith@example.com');
    expect(outcomes(await importCsv('families', moved, { dryRun: true }))).toEqual([
      [2, 'update'],
      [3, 'unchanged'],
      [4, 'refused'],
    ]);
    expect(outcomes(await importCsv('families', moved))).toEqual([
      [2, 'update'],
      [3, 'unchanged'],
      [4, 'refused'],
    ]);
    expect((await get(`/api/contacts/${contactIdOf(jane)}`)).contact.email).toBe('jane.smith@example.com');
    expect(await eventCount()).toBe(written + 1);
  });

  const tutors = [
    'reference,first_name,last_name,email,phone,address_1,postcode,username,invoice_prefix,start_date',
    'T1,Sam,Jones,sam@example.com,07700 900010,5 High Street,OX1 4AA,samj,SJ,01/09/2024',
    'T2,Lena,Berg,lena@example.com,,,OX1 5AA,,,2024-10-01',
    'T3,Kim,Lee,kim@example.com,,,OX1 6AA,samj,KL,2024-10-01',
  ].join('\n');

  it('imports tutors: names suggested when blank, a taken username refused, a re-run changes nothing', async () => {
    const dry = await importCsv('tutors', tutors, { dryRun: true });
    expect(outcomes(dry)).toEqual([
      [2, 'create'],
      [3, 'create'],
      [4, 'refused'],
    ]);
    expect(dry.rows[2]).toMatchObject({ fields: { username: 'That username is already taken' } });
    const real = await importCsv('tutors', tutors);
    expect(outcomes(real)).toEqual(outcomes(dry));
    const { tutor: sam } = await get(`/api/tutors/${idForKey('tutors', 'T1')}`);
    expect(sam).toMatchObject({ username: 'samj', invoicePrefix: 'SJ', startDate: '2024-09-01' });
    const { tutor: lena } = await get(`/api/tutors/${idForKey('tutors', 'T2')}`);
    expect(lena).toMatchObject({ username: 'lberg', startDate: '2024-10-01' });
    const written = await eventCount();
    expect(outcomes(await importCsv('tutors', tutors))).toEqual([
      [2, 'unchanged'],
      [3, 'unchanged'],
      [4, 'refused'],
    ]);
    expect(await eventCount()).toBe(written);
  });

  it('imports engagements with £ rates, % shares and both date forms; an unknown family is refused', async () => {
    const engagements = [
      'reference,tutor_reference,family_reference,child,rate,commission,partner_share,start_date,subjects',
      'E1,T1,F1,Alice,"£1,045.50",25%,10,01/10/2024,"maths, Physics"',
      'E2,T1,F1,2,£40,20 %,0%,2024-10-02,English',
      'E3,T2,F9,Alice,£40,20%,0,2024-10-02,English',
      'E4,T2,F2,Maya,forty,20%,0,2024-10-02,English',
    ].join('\n');
    const dry = await importCsv('engagements', engagements, { dryRun: true });
    expect(outcomes(dry)).toEqual([
      [2, 'create'],
      [3, 'create'],
      [4, 'refused'],
      [5, 'refused'],
    ]);
    expect(dry.rows[2]?.fields).toHaveProperty('family_reference');
    expect(dry.rows[3]?.fields).toEqual({ rate: 'Rate must be a number' });
    const real = await importCsv('engagements', engagements);
    expect(outcomes(real)).toEqual(outcomes(dry));
    const tutorId = idForKey('tutors', 'T1');
    const { engagement: first } = await get(`/api/tutors/engagement/${tutorId}/${idForKey('engagements', 'E1')}`);
    expect(first).toMatchObject({
      rate: 1045.5,
      commissionRate: 0.25,
      partnerRate: 0.1,
      startDate: '2024-10-01',
      subjects: ['Maths', 'Physics'],
      studentId: childIdOf(idForKey('families', 'F1'), 1),
    });
    const { engagement: second } = await get(`/api/tutors/engagement/${tutorId}/${idForKey('engagements', 'E2')}`);
    expect(second).toMatchObject({
      rate: 40,
      commissionRate: 0.2,
      studentId: childIdOf(idForKey('families', 'F1'), 2),
    });

    const written = await eventCount();
    expect(outcomes(await importCsv('engagements', engagements))).toEqual([
      [2, 'unchanged'],
      [3, 'unchanged'],
      [4, 'refused'],
      [5, 'refused'],
    ]);
    expect(await eventCount()).toBe(written);
    // Other terms for an engagement already brought in are refused: a change of terms has a date.
    const dearer = engagements.replace('£40,20 %', '£50,20 %');
    expect((await importCsv('engagements', dearer, { dryRun: true })).rows[1]).toMatchObject({ outcome: 'refused' });
  });

  it('a run cut short by a crash, then retried, records every row once', async () => {
    const file = [
      'reference,first_name,last_name,email,postcode',
      'C1,Ada,Crash,ada@example.com,OX1 1AA',
      'C2,Ben,Crash,ben@example.com,OX1 1AA',
      'C3,Cy,Crash,cy@example.com,OX1 1AA',
    ].join('\n');
    let appended = 0;
    injectFaults({
      at: (fault) => {
        // The second tutor is appended, then the process "dies" before answering.
        if (fault.step === 'appended' && fault.streamId.startsWith('tutor-') && ++appended === 2)
          throw new Error('crash');
      },
    });
    try {
      expect((await send({ kind: 'tutors', csv: file })).statusCode).toBe(500);
    } finally {
      injectFaults(undefined);
    }
    const retried = await importCsv('tutors', file);
    expect(outcomes(retried)).toEqual([
      [2, 'unchanged'],
      [3, 'unchanged'],
      [4, 'create'],
    ]);
    const registered = await db.query(
      `select stream_id, count(*)::int as n from es.events where event_type = 'TutorRegistered' and stream_id = any($1) group by stream_id`,
      [['C1', 'C2', 'C3'].map((key) => `tutor-${idForKey('tutors', key)}`)],
    );
    expect(registered.rows.map((row) => row.n)).toEqual([1, 1, 1]);
    expect(outcomes(await importCsv('tutors', file))).toEqual([
      [2, 'unchanged'],
      [3, 'unchanged'],
      [4, 'unchanged'],
    ]);
  });

  it('refuses what it cannot read with a 4xx, writing nothing; admins only', async () => {
    const before = await eventCount();
    const refused = async (payload: object, status: number, code: string) => {
      const response = await send(payload);
      expect(response.statusCode, response.body).toBe(status);
      expect(response.json().error.code).toBe(code);
    };
    await refused({ kind: 'families', csv: 'reference,first_name\n"F1,Ann' }, 400, 'invalid_input');
    await refused(
      { kind: 'families', csv: 'ref,first_name,last_name,email,phone,address_1,postcode\nF1' },
      400,
      'invalid_input',
    );
    await refused({ kind: 'tutors', csv: 'reference,first_name\nT9,Ann' }, 400, 'invalid_input');
    await refused({ kind: 'pets', csv: 'reference\nP1' }, 400, 'invalid_input');
    const tooMany = `reference,first_name,last_name,email,postcode\n${'x\n'.repeat(LIMITS.maxImportRows + 1)}`;
    await refused({ kind: 'tutors', csv: tooMany }, 400, 'too_many_rows');
    await refused({ kind: 'tutors', csv: 'x'.repeat(LIMITS.maxImportBodyBytes) }, 413, 'payload_too_large');
    expect(await eventCount()).toBe(before);

    const template = await product.command.app.inject({
      method: 'GET',
      url: '/api/import/templates/engagements.csv',
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(template.statusCode).toBe(200);
    expect(template.headers['content-type']).toContain('text/csv');
    expect(template.body).toContain('"reference","tutor_reference","family_reference","child","rate"');
    const templates = await product.command.app.inject({
      method: 'GET',
      url: '/api/import/templates/pets.csv',
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(templates.statusCode).toBe(404);
  });

  const post = (url: string, payload: object, token = admin) =>
    product.command.app.inject({
      method: 'POST',
      url,
      payload: { commandId: randomUUID(), ...payload },
      headers: { authorization: `Bearer ${token}` },
    });
  const posted = async (url: string, payload: object, token = admin) => {
    const response = await post(url, payload, token);
    expect(response.statusCode, `${url} ${response.body}`).toBe(200);
    return response.json();
  };
  /** A 4xx in the product's shape: a code, a message and (when some are at fault) the fields. */
  const expectRefusal = (response: { statusCode: number; json: () => unknown; body: string }, status: number) => {
    expect(response.statusCode, response.body).toBe(status);
    const { error } = response.json() as { error: { code: string; message: string; fields?: object } };
    expect(error).toEqual({
      code: expect.any(String),
      message: expect.any(String),
      ...(error.fields ? { fields: expect.any(Object) } : {}),
    });
  };
  const familyHeader =
    'reference,first_name,last_name,email,phone,address_1,postcode,dob,child_1_first_name,child_1_dob';
  const familyRow = (key: string, first = 'Ann', rest = ',,') =>
    `${key},${first},Edge,${key.toLowerCase()}@example.com,07700 900100,1 Edge Road,OX1 1AA${rest}`;

  it('refuses extreme values row by row, each under its column, and a dry run of them writes nothing', async () => {
    const before = await eventCount();
    const file = [
      familyHeader,
      familyRow('X1', 'Ann', ',31/02/2026,,'),
      familyRow('X2', 'Bea', ',,Cal,00/00/0000'),
      familyRow('X3', 'D'.repeat(100_000)),
      familyRow('X4', '"=HYPERLINK(""http://evil.example"",""x"")"'),
      familyRow('X5', 'Eve', ',1900-01-01,Fay,2101-01-01'),
    ].join('\n');
    const dry = await importCsv('families', file, { dryRun: true });
    expect(dry.rows.map(({ row, outcome, fields }) => [row, outcome, Object.keys(fields ?? {})])).toEqual([
      [2, 'refused', ['dob']],
      [3, 'refused', ['child_1_dob']],
      [4, 'refused', ['first_name']],
      [5, 'create', []],
      [6, 'refused', ['child_1_dob']],
    ]);
    const engagements = [
      'reference,tutor_reference,family_reference,child,rate,commission,partner_share,start_date,subjects',
      'XE1,T2,F1,Alice,£99999999999.99,0%,0,2024-10-02,English',
      'XE2,T2,F1,Alice,-£1,0%,0,2024-10-02,English',
      'XE3,T2,F1,Alice,£40,100.001%,0,2024-10-02,English',
      'XE4,T2,F1,Alice,£40,10%,-1%,2024-10-02,English',
      'XE5,T2,F1,Alice,£40,10%,0,31/02/2026,English',
      'XE6,T2,F1,Alice,£40,10%,0,00/00/0000,English',
      'XE7,T2,F1,Alice,£40,10%,0,2024-10-02,Astrology',
      'XE8,T2,F1,Alice,£40,0%,100%,2024-10-02,English',
      // One ongoing engagement per tutor and child: refused under the file's column, not the form's.
      'XE9,T2,F1,Alice,£40,0%,100%,2024-10-03,English',
      `XE10,T2,F2,Maya,£40,10%,0,2024-10-02,"${Array(subjectOptions.length + 1)
        .fill('Maths, maths')
        .join(', ')}"`,
    ].join('\n');
    const engagementsDry = await importCsv('engagements', engagements, { dryRun: true });
    expect(engagementsDry.rows.map(({ row, outcome, fields }) => [row, outcome, Object.keys(fields ?? {})])).toEqual([
      [2, 'refused', ['rate']],
      [3, 'refused', ['rate']],
      [4, 'refused', ['commission']],
      [5, 'refused', ['partner_share']],
      [6, 'refused', ['start_date']],
      [7, 'refused', ['start_date']],
      [8, 'refused', ['subjects']],
      [9, 'create', []],
      [10, 'refused', ['child']],
      [11, 'create', []],
    ]);
    expect(await eventCount()).toBe(before);
    // The real run writes the good rows only, and a formula-looking name is kept as typed, as text.
    const real = await importCsv('engagements', engagements);
    expect(outcomes(real)).toEqual(outcomes(engagementsDry));
    expect(await eventCount()).toBeGreaterThan(before);
  });

  it('reads a 10,000-row file to its end: every row answered, none written twice', async () => {
    // Two references, each repeated: the first of each is planned, every later one refused naming it.
    const rows = Array.from({ length: LIMITS.maxImportRows }, (_, at) =>
      at % 2 === 0 ? familyRow('BIG1', 'Big', ',,,') : familyRow('BIG2', 'Bob', ',,,'),
    );
    const answer = await importCsv('families', [familyHeader, ...rows].join('\r'), { dryRun: true });
    expect(answer.totalRows).toBe(LIMITS.maxImportRows);
    expect(answer.summary).toEqual({ rows: LIMITS.maxImportRows, create: 2, update: 0, unchanged: 0, refused: 9998 });
    expect(answer.rows.at(-1)).toMatchObject({ row: LIMITS.maxImportRows + 1, reason: 'Row 3 has the same reference' });
  });

  it('refuses, row by row, to bring back or attach to a family or tutor erased earlier', async () => {
    const family = [familyHeader, familyRow('Z1', 'Zoe', ',,Zac,01/02/2015')].join('\n');
    const tutorFile = [
      'reference,first_name,last_name,email,postcode,username,invoice_prefix,start_date',
      'Z9,Zed,Gone,zed@example.com,OX1 1AA,zedgone,ZG,01/09/2024',
    ].join('\n');
    expect(outcomes(await importCsv('families', family))).toEqual([[2, 'create']]);
    expect(outcomes(await importCsv('tutors', tutorFile))).toEqual([[2, 'create']]);
    const clientId = idForKey('families', 'Z1');
    const tutorId = idForKey('tutors', 'Z9');
    await posted(`/api/clients/erase/${clientId}`, { reason: 'Asked by the family', confirm: true });
    await posted(`/api/tutors/active/${tutorId}`, { active: false, endDate: '2025-01-31' });
    await posted(`/api/tutors/erase/${tutorId}`, { reason: 'Asked by the tutor', confirm: true });
    const before = await eventCount();
    const engagements = [
      'reference,tutor_reference,family_reference,child,rate,commission,partner_share,start_date,subjects',
      'ZE1,T1,Z1,1,£40,10%,0,2024-10-02,English',
      `ZE2,T1,${clientId},1,£40,10%,0,2024-10-02,English`,
      'ZE3,Z9,F2,Maya,£40,10%,0,2024-10-02,English',
    ].join('\n');
    for (const dryRun of [true, false]) {
      for (const [kind, file] of [
        ['families', family],
        ['families', family.replace('Zoe', 'Zoey')],
        ['tutors', tutorFile],
        ['tutors', tutorFile.replace('Zed', 'Zeb')],
      ] as const) {
        const [row] = (await importCsv(kind, file, { dryRun })).rows;
        expect(row, `${kind} ${dryRun}`).toMatchObject({ outcome: 'refused', reason: expect.stringMatching(/erased/) });
      }
      const answer = await importCsv('engagements', engagements, { dryRun });
      expect(answer.rows.map(({ outcome, reason, fields }) => [outcome, reason, Object.keys(fields ?? {})])).toEqual([
        ['refused', expect.stringMatching(/erased/), ['family_reference']],
        ['refused', expect.stringMatching(/erased/), ['family_reference']],
        ['refused', expect.stringMatching(/erased/), ['tutor_reference']],
      ]);
    }
    expect(await eventCount()).toBe(before);
  });

  it('two admins importing the same files at the same moment write each row once', async () => {
    const second = { username: 'admin.two', password: 'Admin-two-pass-42' };
    await posted('/api/users', { ...second, role: 'admin', name: 'Second Admin' });
    const other = await product.login(second.username, second.password);
    const families = [
      familyHeader,
      ...Array.from({ length: 12 }, (_, n) => familyRow(`P${n}`, 'Pat', `,,Kit,0${(n % 9) + 1}/01/2015`)),
    ].join('\n');
    const tutorFile = [
      'reference,first_name,last_name,email,postcode,username,invoice_prefix,start_date',
      ...Array.from({ length: 4 }, (_, n) => `PT${n},Pia,Twin${n},pt${n}@example.com,OX1 1AA,,,01/09/2024`),
    ].join('\n');
    const engagements = [
      'reference,tutor_reference,family_reference,child,rate,commission,partner_share,start_date,subjects',
      ...Array.from({ length: 4 }, (_, n) => `PE${n},PT${n},P${n},1,£40,10%,0,2024-10-02,English`),
    ].join('\n');
    for (const [kind, file] of [
      ['families', families],
      ['tutors', tutorFile],
      ['engagements', engagements],
    ] as const) {
      const answers = await Promise.all([admin, other].map((token) => send({ kind, csv: file }, token)));
      for (const response of answers) {
        expect(response.statusCode, response.body).toBe(200);
        const rows = importAnswer.parse(response.json()).rows;
        expect(
          rows.filter(({ outcome }) => outcome !== 'create' && outcome !== 'unchanged'),
          kind,
        ).toEqual([]);
      }
      // Once more, alone: every row is there, as the file says.
      const again = await importCsv(kind, file);
      expect(again.summary.unchanged, kind).toBe(again.summary.rows);
    }
    const counted = await db.query(
      `select event_type, count(*)::int as n, count(distinct stream_id)::int as streams from es.events
        where event_type in ('ClientRegistered', 'ChildAdded', 'TutorRegistered', 'TutorEngagementStarted', 'EngagementStarted')
          and (stream_id = any($1) or stream_id = any($2))
        group by event_type order by event_type`,
      [
        Array.from({ length: 12 }, (_, n) => `client-${idForKey('families', `P${n}`)}`),
        Array.from({ length: 4 }, (_, n) => `tutor-${idForKey('tutors', `PT${n}`)}`),
      ],
    );
    expect(counted.rows).toEqual([
      { event_type: 'ChildAdded', n: 12, streams: 12 },
      { event_type: 'ClientRegistered', n: 12, streams: 12 },
      { event_type: 'TutorEngagementStarted', n: 4, streams: 4 },
      { event_type: 'TutorRegistered', n: 4, streams: 4 },
    ]);
  });

  it('answers a non-admin, an ended session and a login turned off with 401/403, writing nothing', async () => {
    const before = await eventCount();
    const file = [familyHeader, familyRow('NA1')].join('\n');
    const tokens: [string, string, number][] = [];
    for (const role of ['tutor', 'partner', 'auditor'] as const) {
      const login = { username: `import.${role}`, password: `Import-${role}-pass-42` };
      const tutorId = role === 'auditor' ? null : idForKey('tutors', 'T1');
      await posted('/api/users', { ...login, role, tutorId, name: role });
      tokens.push([role, await product.login(login.username, login.password), 403]);
    }
    const ended = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
    expect((await post('/auth/local/logout', {}, ended)).statusCode).toBe(200);
    tokens.push(['ended', ended, 401]);
    const off = { username: 'import.off', password: 'Import-off-pass-42' };
    const { user } = await posted('/api/users', { ...off, role: 'admin', name: 'Off Admin' });
    const offToken = await product.login(off.username, off.password);
    await posted(`/api/users/active/${user.id}`, { active: false });
    tokens.push(['off', offToken, 401], ['none', 'not-a-token', 401]);
    const written = await eventCount();
    for (const [who, token, status] of tokens) {
      for (const dryRun of [false, true])
        expectRefusal(await send({ kind: 'families', csv: file, dryRun }, token), status);
      const template = await product.command.app.inject({
        method: 'GET',
        url: '/api/import/templates/families.csv',
        headers: { authorization: `Bearer ${token}` },
      });
      expect(template.statusCode, who).toBe(status);
      // Refused before the body is read: what they send is never parsed, not even to find it broken.
      const unread = await product.command.app.inject({
        method: 'POST',
        url: '/api/import',
        payload: '{"kind": "families", "csv": ',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      });
      expect(unread.statusCode, who).toBe(status);
    }
    expect(await eventCount()).toBe(written);
    expect(written).toBeGreaterThan(before);
  });

  it('refuses a request it cannot honour whole, with a 4xx in the product shape', async () => {
    const before = await eventCount();
    const file = [familyHeader, familyRow('R1')].join('\n');
    for (const options of [
      { offset: -1 },
      { offset: LIMITS.maxImportRows + 1 },
      { offset: 1.5 },
      { offset: '1' },
      { limit: 0 },
      { limit: -5 },
      { limit: LIMITS.maxImportRows + 1 },
      { key: 'no_such_column' },
      { key: 'x'.repeat(LIMITS.maxTextLength + 1) },
      { csv: '' },
      { csv: '\uFEFF' },
      { csv: '\r\n\r\n' },
      { csv: `${familyHeader}\nR1,"Ann` },
      { csv: file.replace('Ann', 'A\u0000nn') },
      // Two columns the import reads, under one name: which one is meant cannot be told.
      { csv: file.replace('email,phone', 'email,Email') },
      { csv: file.replace('reference,', 'Reference,').replace('postcode,', 'reference,') },
      // An eleventh child would be left out without a word.
      { csv: file.replace('child_1_dob', 'child_1_dob,child_11_first_name') },
      { dryRun: 'yes' },
      { kind: 'Families' },
    ]) {
      const response = await send({ kind: 'families', csv: file, ...options });
      expect(response.statusCode, JSON.stringify(options).slice(0, 100)).toBe(400);
      expectRefusal(response, 400);
    }
    expect(await eventCount()).toBe(before);
    // A slice past the end is no error: no rows, and the file's own count.
    const past = await importCsv('families', file, { offset: 5, limit: 2, dryRun: true });
    expect([past.totalRows, past.rows]).toEqual([1, []]);
    // Only a header: nothing to do. Unknown columns named twice are ignored, as unknown columns are.
    const headerOnly = await importCsv('families', `${familyHeader},notes,notes\r\n`, { dryRun: true });
    expect([headerOnly.totalRows, headerOnly.summary.rows]).toEqual([0, 0]);
    // CR alone between rows, and a byte-order mark that a concatenated file left in the middle.
    const joined = [familyHeader, familyRow('R2', '\uFEFFRia'), familyRow('\uFEFFR3', 'Rex')].join('\r');
    const read = await importCsv('families', joined, { dryRun: true });
    expect(read.rows.map(({ row, key, outcome }) => [row, key, outcome])).toEqual([
      [2, 'R2', 'create'],
      [3, 'R3', 'create'],
    ]);
    expect(await eventCount()).toBe(before);
  });

  it('a tutor whose names a crash left reserved is registered under those names on the retry', async () => {
    // The crash came after the names were reserved and before the tutor was recorded.
    const tutorId = idForKey('tutors', 'RL1');
    await db.query(`insert into command.usernames (name, tutor_id) values ('rleft', $1)`, [tutorId]);
    await db.query(`insert into command.tutor_names (kind, name, tutor_id) values ('prefix', 'RL', $1)`, [tutorId]);
    const file = ['reference,first_name,last_name,email,postcode', 'RL1,Rae,Left,rae@example.com,OX1 1AA'].join('\n');
    expect(outcomes(await importCsv('tutors', file))).toEqual([[2, 'create']]);
    const { tutor: rae } = await get(`/api/tutors/${tutorId}`);
    expect(rae).toMatchObject({ username: 'rleft', invoicePrefix: 'RL' });
    const held = await db.query(
      `select name from command.usernames where tutor_id = $1
       union all select name from command.tutor_names where tutor_id = $1 order by name`,
      [tutorId],
    );
    expect(held.rows.map(({ name }) => name)).toEqual(['RL', 'rleft']);
  });

  it('engagements cut short by a crash between two rows, then retried, are each started once', async () => {
    const file = [
      'reference,tutor_reference,family_reference,child,rate,commission,partner_share,start_date,subjects',
      ...[4, 5, 6].map((n) => `CE${n},PT0,P${n},1,£40,10%,0,2024-10-02,English`),
    ].join('\n');
    const roster = `tutor-${idForKey('tutors', 'PT0')}`;
    let appended = 0;
    injectFaults({
      at: (fault) => {
        if (fault.step === 'appended' && fault.streamId === roster && ++appended === 2) throw new Error('crash');
      },
    });
    expect((await send({ kind: 'engagements', csv: file })).statusCode).toBe(500);
    injectFaults(undefined);
    expect(outcomes(await importCsv('engagements', file))).toEqual([
      [2, 'unchanged'],
      [3, 'unchanged'],
      [4, 'create'],
    ]);
    expect(outcomes(await importCsv('engagements', file))).toEqual([
      [2, 'unchanged'],
      [3, 'unchanged'],
      [4, 'unchanged'],
    ]);
    const started = await db.query(
      `select event_type, count(*)::int as n from es.events
        where event_type in ('TutorEngagementStarted', 'EngagementStarted') and data->>'engagementId' = any($1)
        group by event_type order by event_type`,
      [[4, 5, 6].map((n) => idForKey('engagements', `CE${n}`))],
    );
    expect(started.rows).toEqual([
      { event_type: 'EngagementStarted', n: 3 },
      { event_type: 'TutorEngagementStarted', n: 3 },
    ]);
  });

  it('never suggests a new tutor the names of a tutor recorded since the names were read', async () => {
    const header = 'reference,first_name,last_name,email,postcode';
    expect(outcomes(await importCsv('tutors', `${header}\nSN1,Sol,Nash,sol@example.com,OX1 1AA`))).toEqual([
      [2, 'create'],
    ]);
    const solId = idForKey('tutors', 'SN1');
    // As another run's tutor is when this run read the names before that run reserved them.
    const held = await db.query(
      `with u as (delete from command.usernames where tutor_id = $1 returning name),
            p as (delete from command.tutor_names where tutor_id = $1 returning kind, name)
       select (select name from u) as username, (select name from p) as prefix`,
      [solId],
    );
    const { username, prefix } = held.rows[0];
    try {
      const file = `${header}\nSN1,Sol,Nash,sol@example.com,OX1 1AA\nSN2,Sam,Nash,sam.nash@example.com,OX1 1AA`;
      expect(outcomes(await importCsv('tutors', file))).toEqual([
        [2, 'unchanged'],
        [3, 'create'],
      ]);
      const { tutor: sam } = await get(`/api/tutors/${idForKey('tutors', 'SN2')}`);
      expect([sam.username, sam.invoicePrefix]).toEqual(['samnash', 'SNA']);
      expect([username, prefix]).toEqual(['snash', 'SN']);
    } finally {
      await db.query(`insert into command.usernames (name, tutor_id) values ($1, $2) on conflict do nothing`, [
        username,
        solId,
      ]);
      await db.query(
        `insert into command.tutor_names (kind, name, tutor_id) values ('prefix', $1, $2) on conflict do nothing`,
        [prefix, solId],
      );
    }
  });

  it('a tutor row refused because another run recorded the tutor meanwhile frees none of their names', async () => {
    const header = 'reference,first_name,last_name,email,postcode,username,invoice_prefix';
    const tutorId = idForKey('tutors', 'RR1');
    // The other run records the tutor, under other names, while this one holds its reservation.
    const remove = onRacePoint('tutor.namesReserved', async () => {
      remove();
      const other = await importCsv('tutors', `${header}\nRR1,Ria,Race,ria@example.com,OX1 1AA,rrother,RRO`);
      expect(outcomes(other)).toEqual([[2, 'create']]);
    });
    try {
      const mine = await importCsv('tutors', `${header}\nRR1,Ria,Race,ria.race@example.com,OX1 1AA,rrmine,RRM`);
      expect(outcomes(mine)).toEqual([[2, 'refused']]);
    } finally {
      remove();
    }
    const held = await db.query(`select name from command.usernames where tutor_id = $1`, [tutorId]);
    expect(held.rows.map(({ name }) => name)).toContain('rrother');
    const prefixes = await db.query(`select name from command.tutor_names where tutor_id = $1`, [tutorId]);
    expect(prefixes.rows.map(({ name }) => name)).toContain('RRO');
  });
});
