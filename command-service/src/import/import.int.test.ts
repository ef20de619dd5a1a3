import { type ImportAnswer, importAnswer, LIMITS } from '@agency/contracts';
import { injectFaults, useProductWithFaults } from '@agency/scripts/testing/product-with-faults';
import type { TestProduct } from '@agency/scripts/testing/test-product';
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
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
});
