import { randomBytes } from 'node:crypto';
import { createTestDatabase } from '@agency/scripts/testing/test-database';
import pg from 'pg';
import { firstValueFrom, take, toArray } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventReadError } from '../event-store/port';
import { migrateEventStore, PostgresEventStore } from '../event-store/postgres/postgres-event-store';
import { PersonalDataEventStore } from './personal-data-store';
import { PersonalDataVault, SubjectErased, UnreadableSealedValue } from './vault';

const metadata = { userId: 'admin', role: 'admin', commandId: 'c', correlationId: 'c', causationId: 'c' };
const contact = {
  id: 'contact-1',
  firstName: 'Wilhelmina',
  lastName: 'Quartermaine',
  address: ['7 Juniper Row', 'Hexham'],
  postcode: 'NE46 3QQ',
  email: 'wilhelmina@example.com',
  phone: [{ type: 'Mobile', number: '07700 900123' }],
  dob: '1980-02-03',
};
const CLEAR_VALUES = ['Wilhelmina', 'Quartermaine', 'Juniper', 'NE46 3QQ', 'wilhelmina@example.com', '07700 900123'];

/**
 * Personal fields through the store (real PostgreSQL): sealed in `es.events`, clear through
 * every way of reading, and "Erased" (shaped like the field) once the subject's key is shredded;
 * the non-personal fields stay in clear throughout.
 */
/**
 * A family registered underneath the personal-data layer, its first name a sealed value as given
 * (as a store whose key table is not this one holds it).
 */
const registeredUnderneath = (pool: pg.Pool, clientId: string, firstName: unknown) =>
  new PostgresEventStore(pool).appendToStream(
    `client-${clientId}`,
    [
      {
        type: 'ClientRegistered',
        data: { clientId, startDate: '2026-01-05', contact: { id: `contact-${clientId.slice(1)}`, firstName } },
        metadata,
      },
    ],
    { expectedRevision: 'no_stream' },
  );

describe('personal data encrypted per data subject', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let pool: pg.Pool;
  let vault: PersonalDataVault;
  let store: PersonalDataEventStore;
  const masterKey = randomBytes(32);

  beforeAll(async () => {
    database = await createTestDatabase();
    pool = new pg.Pool({ connectionString: database.url, max: 5 });
    await migrateEventStore(pool);
    vault = await PersonalDataVault.open(pool, { masterKey });
    store = new PersonalDataEventStore(new PostgresEventStore(pool, { pollIntervalMs: 50 }), vault);
    await store.appendToStream(
      'client-c1',
      [
        { type: 'ClientRegistered', data: { clientId: 'c1', startDate: '2026-01-05', contact }, metadata },
        {
          type: 'ChildAdded',
          data: {
            clientId: 'c1',
            child: { id: 'child-1', firstName: 'Peregrine', lastName: 'Quartermaine', dob: '2015-06-07' },
          },
          metadata,
        },
      ],
      { expectedRevision: 'no_stream' },
    );
    await store.appendToStream(
      'client-c2',
      [
        {
          type: 'ClientRegistered',
          data: {
            clientId: 'c2',
            startDate: '2026-01-05',
            contact: { ...contact, id: 'contact-2', firstName: 'Ottoline' },
          },
          metadata,
        },
      ],
      { expectedRevision: 'no_stream' },
    );
  });

  afterAll(async () => {
    await pool.end();
    await database.drop();
  });

  it('stores the personal fields sealed and everything else in clear', async () => {
    const rows = (
      await pool.query<{ data: string }>('select data::text as data from es.events order by global_position')
    ).rows;
    const stored = rows.map((row) => row.data).join('\n');
    for (const value of [...CLEAR_VALUES, 'Peregrine', '1980-02-03', '2015-06-07']) expect(stored).not.toContain(value);
    expect(stored).toContain('"clientId": "c1"');
    expect(stored).toContain('"startDate": "2026-01-05"');
    expect(stored).toContain('"id": "contact-1"');
    expect(stored).toContain('"$enc": "v1"');
    const keys = (await pool.query('select key::text from pii.subject_keys')).rows.map((row) => row.key).join('\n');
    // The data keys themselves are stored wrapped by the master key.
    expect(keys).not.toBe('');
  });

  it('hands out clear payloads through streams, $all and subscriptions', async () => {
    const [registered, child] = await store.readStream('client-c1');
    expect(registered?.data.contact).toEqual(contact);
    expect(child?.data.child).toMatchObject({ firstName: 'Peregrine', dob: '2015-06-07' });
    const all = await store.readAll();
    expect(all.map((event) => (event.data.contact as { firstName?: string } | undefined)?.firstName)).toEqual([
      'Wilhelmina',
      undefined,
      'Ottoline',
    ]);
    const live = await firstValueFrom(store.subscribeToAll().pipe(take(3), toArray()));
    expect(live.map((event) => event.data)).toEqual(all.map((event) => event.data));
  });

  it('reads a shredded subject as "Erased" and leaves the other subjects readable', async () => {
    await vault.shred('c1');
    const [registered, child] = await store.readStream('client-c1');
    expect(registered?.data).toEqual({
      clientId: 'c1',
      startDate: '2026-01-05',
      contact: {
        id: 'contact-1',
        firstName: 'Erased',
        lastName: 'Erased',
        address: ['Erased'],
        postcode: 'Erased',
        email: 'Erased',
        phone: [],
        dob: null,
      },
    });
    expect(child?.data.child).toEqual({ id: 'child-1', firstName: 'Erased', lastName: 'Erased', dob: null });
    // Another process (a rebuild) with no cached key reads the same.
    const fresh = new PersonalDataEventStore(new PostgresEventStore(pool), vault);
    expect((await fresh.readAll()).map((event) => event.data)).toEqual((await store.readAll()).map((e) => e.data));
    expect((await store.readStream('client-c2'))[0]?.data.contact).toMatchObject({ firstName: 'Ottoline' });
    const row = (await pool.query("select key, shredded_at from pii.subject_keys where subject_id = 'c1'")).rows[0];
    expect(row.key).toBeNull();
    expect(row.shredded_at).not.toBeNull();
  });

  it('refuses to record personal data for an erased subject', async () => {
    await expect(
      store.appendToStream(
        'client-c1',
        [{ type: 'ContactAdded', data: { clientId: 'c1', contact: { ...contact, id: 'contact-3' } }, metadata }],
        { expectedRevision: 'any' },
      ),
    ).rejects.toBeInstanceOf(SubjectErased);
  });

  it('keeps accounting keys until their retention ends, then shreds those of erased families only', async () => {
    await vault.retain('family-invoice-billing:c2', '2032-03-31', 'c2');
    await vault.retain('family-invoice-billing:c3', '2031-12-31', 'c3');
    const billing = { name: 'Ottoline Quartermaine', address: ['7 Juniper Row'] };
    const sealed = await vault.encrypt('family-invoice-billing:c2', billing, 'FamilyInvoiceIssued.billing');
    const current = await vault.encrypt('family-invoice-billing:c3', billing, 'FamilyInvoiceIssued.billing');
    expect(await vault.retainedUntil(['family-invoice-billing:c2'])).toEqual([
      { subject: 'family-invoice-billing:c2', retainUntil: '2032-03-31' },
    ]);
    // Erasing the family does not touch what accounting must keep.
    await vault.shred('c2');
    expect(await vault.shredExpiredAccountingKeys(new Date('2032-03-31T12:00:00Z'))).toEqual([]);
    expect(await vault.decrypt(sealed, 'FamilyInvoiceIssued.billing', () => 'Erased')).toEqual(billing);
    expect(await vault.shredExpiredAccountingKeys(new Date('2032-04-01T00:30:00Z'))).toEqual([
      'family-invoice-billing:c2',
    ]);
    expect(await vault.decrypt(sealed, 'FamilyInvoiceIssued.billing', () => 'Erased')).toBe('Erased');
    // c3 was never erased: its billing key stays, however long ago its last invoice was.
    expect(await vault.shredExpiredAccountingKeys(new Date('2040-01-01T00:00:00Z'))).toEqual([]);
    expect(await vault.decrypt(current, 'FamilyInvoiceIssued.billing', () => 'Erased')).toEqual(billing);
    await vault.retain('family-invoice-billing:c3', '2046-01-01', 'c3');
    expect(await vault.encrypt('family-invoice-billing:c3', billing, 'FamilyInvoiceIssued.billing')).toMatchObject({
      $enc: 'v1',
    });
  });

  it('gives a family whose billing key an earlier release shredded (never erased) a new key, and names it', async () => {
    await vault.retain('family-invoice-billing:c4', '2020-01-01', 'c4');
    const before = await vault.encrypt('family-invoice-billing:c4', { name: 'y' }, 'FamilyInvoiceIssued.billing');
    // What the earlier retention job did: shredded without looking at the owner.
    await pool.query(
      "update pii.subject_keys set key = null, shredded_at = now() where subject_id = 'family-invoice-billing:c4'",
    );
    vault.forget('family-invoice-billing:c4');
    await expect(
      vault.encrypt('family-invoice-billing:c4', { name: 'x' }, 'FamilyInvoiceIssued.billing'),
    ).rejects.toBeInstanceOf(SubjectErased);
    expect(await vault.restoreWronglyShreddedAccountingKeys()).toEqual(['c4']);
    const sealed = await vault.encrypt('family-invoice-billing:c4', { name: 'x' }, 'FamilyInvoiceIssued.billing');
    expect(await vault.decrypt(sealed, 'FamilyInvoiceIssued.billing', () => 'Erased')).toEqual({ name: 'x' });
    // What the old key sealed reads "Erased" (its id is kept as retired), here and in a fresh process.
    expect(sealed.kid).not.toBe(before.kid);
    expect(await vault.decrypt(before, 'FamilyInvoiceIssued.billing', () => 'Erased')).toBe('Erased');
    const fresh = new PersonalDataVault(pool, { masterKey });
    expect(await fresh.decrypt(before, 'FamilyInvoiceIssued.billing', () => 'Erased')).toBe('Erased');
    expect(await fresh.decrypt(sealed, 'FamilyInvoiceIssued.billing', () => 'Erased')).toEqual({ name: 'x' });
    // An erased family's shredded key stays shredded.
    expect(await vault.restoreWronglyShreddedAccountingKeys()).toEqual([]);
  });
  it('reads a key id it does not know as an error, never "Erased": the event is handed out unreadable', async () => {
    const known = await vault.encrypt('c5', 'Ottoline', 'ClientRegistered.contact.firstName');
    const unknown = { ...known, kid: 'no-such-key' };
    await expect(vault.decrypt(unknown, 'ClientRegistered.contact.firstName', () => 'Erased')).rejects.toBeInstanceOf(
      UnreadableSealedValue,
    );
    // A value moved from the place it was sealed for does not open either.
    await expect(vault.decrypt(known, 'ClientRegistered.contact.lastName', () => 'Erased')).rejects.toBeInstanceOf(
      UnreadableSealedValue,
    );
    // Recorded underneath the personal-data layer, as a store whose key table is not this one holds it.
    await registeredUnderneath(pool, 'c5', unknown);
    const [event] = await store.readStream('client-c5');
    expect(event?.readError).toBeInstanceOf(EventReadError);
    expect(event?.readError?.message).toContain('no such key id');
    // Nothing goes on with a payload it did not get.
    expect(() => event?.data.contact).toThrow(EventReadError);
    expect(() => JSON.stringify(event?.data)).toThrow(EventReadError);
    // Through $all the others are read as ever, in their places: c2, whose key was shredded, as "Erased".
    const all = await store.readAll();
    expect(all.filter((e) => e.readError).map((e) => e.streamId)).toEqual(['client-c5']);
    expect(all.filter((e) => e.streamId === 'client-c2')[0]?.data.contact).toMatchObject({ firstName: 'Erased' });
  });

  it('opens a batch again when a subject is erased while it is being opened: nothing erased is handed out in clear', async () => {
    const from = await store.head();
    await store.appendToStream(
      'client-c6',
      [
        {
          type: 'ClientRegistered',
          data: {
            clientId: 'c6',
            startDate: '2026-01-05',
            contact: { ...contact, id: 'contact-6', firstName: 'Fenella' },
          },
          metadata,
        },
      ],
      { expectedRevision: 'no_stream' },
    );
    // After it, an event whose key id is unknown: opening it reads the key table again, mid-batch.
    const unknown = {
      ...(await vault.encrypt('c7', 'Ottoline', 'ClientRegistered.contact.firstName')),
      kid: 'lost-key',
    };
    await registeredUnderneath(pool, 'c7', unknown);
    // Another instance's vault, whose key table is read through this: at that second read, c6 is
    // erased (its key dropped here too), after c6's event of the batch was opened.
    let reads = 0;
    let erasing: Promise<void> | undefined;
    const table = new Proxy(pool, {
      get(target, key) {
        if (key !== 'query') return Reflect.get(target, key, target);
        return async (text: string, values?: unknown[]) => {
          if (JSON.stringify(values ?? []).includes('lost-key') && ++reads === 2) {
            erasing = there.shred('c6');
            await erasing;
          }
          return target.query(text, values);
        };
      },
    });
    const there = new PersonalDataVault(table, { masterKey });
    const read = await new PersonalDataEventStore(new PostgresEventStore(pool), there).readAll({ from });
    expect(erasing).toBeDefined();
    expect(read.map((event) => event.streamId)).toEqual(['client-c6', 'client-c7']);
    expect(read[0]?.data.contact).toMatchObject({ firstName: 'Erased', email: 'Erased' });
    expect(read[1]?.readError).toBeInstanceOf(EventReadError);
  });
});
