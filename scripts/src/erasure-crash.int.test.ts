import { createHash, randomUUID } from 'node:crypto';
import { unzipSync } from 'fflate';
import type pg from 'pg';
import { describe, expect, it, vi } from 'vitest';
import { injectFaults, useProductWithFaults } from './testing/product-with-faults';
import type { TestProduct } from './testing/test-product';
import { contact, testRequests } from './testing/test-requests';

/**
 * An erasure records its event and then destroys the key; a crash between the two (here: right
 * after the append, and nobody retries) must not leave the screens saying "Erased" while the key
 * still opens everything. The erasure reactor completes it from the event: the key is destroyed,
 * and the rest the route would have done (stored answers, a tutor's username) is done too.
 */
describe('an erasure cut short right after its event is completed all the same', () => {
  let product: TestProduct;
  let db: pg.Pool;
  let admin = '';
  const { post, ok, get } = testRequests(
    () => product,
    () => admin,
  );

  useProductWithFaults((started) => {
    ({ product, db, admin } = started);
  });

  /** The erasure at `url`, crashing right after its append; nobody retries it. */
  const eraseAndCrash = async (url: string) => {
    const commandId = randomUUID();
    injectFaults({
      at: (fault) => {
        if (fault.step === 'appended' && fault.commandId === commandId) throw new Error('crash');
      },
    });
    const response = await post(url, { commandId, reason: 'Asked by the person', confirm: true });
    expect(response.statusCode, response.body).toBe(500);
    injectFaults(undefined);
  };
  const shredded = async (subject: string) =>
    (await db.query('select key is null as gone from pii.subject_keys where subject_id = $1', [subject])).rows[0]
      ?.gone === true;
  const keyShredded = (subject: string) =>
    vi.waitFor(async () => expect(await shredded(subject)).toBe(true), { timeout: 60_000, interval: 20 });
  const storedAnswer = async (commandId: string) =>
    (await db.query('select response from command.processed_commands where command_id = $1', [commandId])).rows[0]
      ?.response;
  /**
   * The subject-access export at `url` once it shows the erasure: its history is read from the
   * store (the key), its rows from the read models (which apply the erasure's event in their time).
   */
  const exportedErased = (url: string, name: string) =>
    vi.waitFor(
      async () => {
        const response = await fetch(`${product.url}${url}`, { headers: { authorization: `Bearer ${admin}` } });
        expect(response.status).toBe(200);
        const files = unzipSync(new Uint8Array(await response.arrayBuffer()));
        const text = Buffer.from(files['export.json']!).toString('utf8');
        expect(text).toContain('"Erased"');
        expect(text).not.toContain(name);
      },
      { timeout: 60_000, interval: 50 },
    );

  it('a family: its key is destroyed, so its kept answers replay "Erased"; export and history read "Erased"', async () => {
    const registerId = randomUUID();
    const register = { ...contact('Wilhelmina', 'Crashworth'), commandId: registerId };
    const { client } = await ok('/api/clients/contact', register);
    // Kept sealed under the family's key: a retry reads it, a copy of the table does not.
    expect(JSON.stringify(await storedAnswer(registerId))).not.toContain('Crashworth');
    expect((await ok('/api/clients/contact', register)).contact.lastName).toBe('Crashworth');

    await eraseAndCrash(`/api/clients/erase/${client.id}`);
    await keyShredded(client.id);
    const replay = await ok('/api/clients/contact', register);
    expect(replay.client.id).toBe(client.id);
    expect(replay.contact.lastName).toBe('Erased');
    expect(JSON.stringify(replay)).not.toContain('Crashworth');

    await exportedErased(`/api/clients/${client.id}/export`, 'Crashworth');
    const history = await get(`/api/history/client-${client.id}`);
    expect(history.status).toBe(200);
    const shown = JSON.stringify(history.body);
    expect(shown).toContain('Erased');
    expect(shown).not.toContain('Crashworth');
  });

  it('a tutor: the key is destroyed, the username kept only as a keyed digest, no activation code left', async () => {
    const { tutor } = await ok('/api/tutors/contact', {
      contact: contact('Ottoline', 'Crashley'),
      tutor: { username: 'ocrashley', invoicePrefix: 'OCR', startDate: '2024-01-01' },
    });
    // An activation e-mailed and never used: its code is the tutor's, and goes with the rest.
    await ok(`/api/tutors/activate/${tutor.id}`, {});
    const codes = () => db.query('select 1 from auth.activation_codes where tutor_id = $1', [tutor.id]);
    expect((await codes()).rowCount).toBe(1);
    await ok(`/api/tutors/active/${tutor.id}`, { id: tutor.id, active: false });

    await eraseAndCrash(`/api/tutors/erase/${tutor.id}`);
    await keyShredded(tutor.id);
    await vi.waitFor(
      async () => {
        const names = await db.query('select name from command.usernames where tutor_id = $1', [tutor.id]);
        expect(names.rows.map((row) => row.name)).toEqual([expect.stringMatching(/^erased:/)]);
        // A keyed digest: the unkeyed hash of a short name is found by trying names.
        const unkeyed = `erased:${createHash('sha256').update('ocrashley').digest('hex')}`;
        expect(names.rows[0].name).not.toBe(unkeyed);
        expect((await codes()).rowCount).toBe(0);
      },
      { timeout: 60_000 },
    );
    const history = await get(`/api/history/tutor-${tutor.id}`);
    expect(JSON.stringify(history.body)).not.toContain('Crashley');
  });

  it('a workshop booking of no known family: its own key is destroyed; its export reads "Erased"', async () => {
    const { event } = await ok('/api/events', {
      description: 'Crash course',
      dateTime: '2099-07-21T10:00',
      durationMinutes: 60,
      price: 10,
      capacity: 5,
      location: 'Village hall',
    });
    // Booked by an admin for a family not on the books: the booking is its own data subject.
    const booked = await post('/api/events/register', {
      eventId: event.id,
      contact: { ...contact('Peregrine', 'Crashfield'), phone: '07700 900003' },
      children: [{ firstName: 'Ada', lastName: 'Crashfield', school: '', schoolYear: '', allergies: '' }],
      comments: '',
    });
    expect(booked.statusCode, booked.body).toBe(200);
    const registrationId = booked.json().registration.id as string;

    await eraseAndCrash(`/api/workshops/registrations/erase/${registrationId}`);
    await keyShredded(`registration:${registrationId}`);
    await exportedErased(`/api/workshops/registrations/${registrationId}/export`, 'Crashfield');
  });
});
