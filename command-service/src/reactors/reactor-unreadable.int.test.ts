import { randomBytes, randomUUID } from 'node:crypto';
import type { PersonalDataRule } from '@agency/contracts';
import { formatPosition, PostgresEventStore, type RecordedEvent } from '@agency/platform';
import { PersonalDataEventStore, PersonalDataVault } from '@agency/platform/personal-data';
import { createTestDatabase } from '@agency/scripts/testing/test-database';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { CommandDependencies } from '../pipeline/command-pipeline';
import { migrateCommandSide } from '../schema';
import type { Reactor } from './reactor';
import { ReactorRunner } from './reactor-runner';

const meta = { userId: 'u', role: 'admin', commandId: 'c', correlationId: 'c', causationId: 'c' };
const rules: Record<string, PersonalDataRule> = {
  Secret: { subjectOf: (data) => String(data.owner), fields: [{ path: ['name'], erased: () => 'Erased' }] },
};

/** Notes the value of one field of each event of its type. */
const noting = (name: string, type: string, field: string, seen: string[]): Reactor => ({
  name,
  handles: [type],
  async react(event: RecordedEvent) {
    seen.push(String(event.data[field]));
  },
});

/**
 * An event that cannot be read stops a reactor that handles its type, at that event, with the
 * failure recorded in its checkpoint (health and the admin banner show it) and retried, reading
 * the event again each time; a reactor that does not handle the type goes past it. Before, the
 * whole read failed for every reactor, unrecorded.
 */
describe('a reactor meets an event that cannot be read', () => {
  let pool: pg.Pool;
  let raw: PostgresEventStore;
  let vault: PersonalDataVault;
  let runner: ReactorRunner;
  let drop: () => Promise<void>;
  const secrets: string[] = [];
  const notes: string[] = [];

  beforeAll(async () => {
    const database = await createTestDatabase();
    drop = database.drop;
    pool = new pg.Pool({ connectionString: database.url });
    raw = await PostgresEventStore.connect(database.url, { pollIntervalMs: 50 });
    vault = await PersonalDataVault.open(pool, { masterKey: randomBytes(32) });
    await migrateCommandSide(pool);
    const store = new PersonalDataEventStore(raw, vault, rules);
    // Its reactors issue no commands: no command dependencies are used.
    runner = new ReactorRunner(
      pool,
      store,
      {} as CommandDependencies,
      [noting('secrets', 'Secret', 'name', secrets), noting('notes', 'Noted', 'label', notes)],
      { backoff: { firstMs: 20, maxMs: 200 } },
    );
    await runner.register();
    runner.start();
  });
  afterAll(async () => {
    await runner.stop();
    await raw.close();
    await pool.end();
    await drop();
  });

  const append = async (type: string, data: Record<string, unknown>) => {
    const streamId = `${type.toLowerCase()}-${randomUUID()}`;
    const { position } = await raw.appendToStream(streamId, [{ type, data, metadata: meta }], {
      expectedRevision: 'no_stream',
    });
    return { streamId, position };
  };
  const secret = async (owner: string, name: string) =>
    append('Secret', { owner, name: await vault.encrypt(owner, name, 'Secret.name') });
  const mend = (streamId: string, sealed: object) =>
    pool.query(`update es.events set data = jsonb_set(data, '{name}', $2::jsonb) where stream_id = $1`, [
      streamId,
      JSON.stringify(sealed),
    ]);
  const checkpoint = async (name: string) =>
    (await pool.query('select failure, attempts from command.reactor_checkpoints where name = $1', [name])).rows[0];

  it('stops the reactor of its type there, recorded and retried; the other goes past; mended, it goes on', async () => {
    await secret('s-1', 'Ann');
    await append('Noted', { label: 'n1' });
    // A sealed field whose ciphertext was changed: it does not authenticate.
    const good = await vault.encrypt('s-2', 'Bob', 'Secret.name');
    const flipped = Buffer.from(Buffer.from(good.ct, 'base64').map((byte) => byte ^ 1));
    const broken = await append('Secret', { owner: 's-2', name: { ...good, ct: flipped.toString('base64') } });
    await append('Noted', { label: 'n2' });
    await secret('s-3', 'Cy');

    await vi.waitFor(() => expect(notes).toEqual(['n1', 'n2']));
    await vi.waitFor(async () => expect((await checkpoint('secrets'))?.attempts).toBeGreaterThanOrEqual(2));
    const stopped = await checkpoint('secrets');
    expect(stopped.failure).toMatchObject({
      position: formatPosition(broken.position),
      streamId: broken.streamId,
      type: 'Secret',
    });
    expect(stopped.failure.error).toContain('cannot be read');
    expect(secrets).toEqual(['Ann']);
    expect((await checkpoint('notes')).failure).toBeNull();

    // Mended in the store: the next retry reads it again and the reactor goes on, nothing skipped.
    await mend(broken.streamId, good);
    await vi.waitFor(() => expect(secrets).toEqual(['Ann', 'Bob', 'Cy']));
    await vi.waitFor(async () => expect((await checkpoint('secrets')).failure).toBeNull());
  });

  it('a key id nobody knows (a key table from elsewhere) stops it too: it never reads as "Erased"', async () => {
    const good = await vault.encrypt('s-4', 'Dee', 'Secret.name');
    const unknown = await append('Secret', { owner: 's-4', name: { ...good, kid: randomUUID() } });
    await append('Noted', { label: 'n3' });
    await vi.waitFor(() => expect(notes).toEqual(['n1', 'n2', 'n3']));
    await vi.waitFor(async () => expect((await checkpoint('secrets'))?.failure).toBeTruthy());
    expect((await checkpoint('secrets')).failure).toMatchObject({ streamId: unknown.streamId, type: 'Secret' });
    expect((await checkpoint('secrets')).failure.error).toContain('no such key id');
    expect(secrets).toEqual(['Ann', 'Bob', 'Cy']);
    await mend(unknown.streamId, good);
    await vi.waitFor(() => expect(secrets).toEqual(['Ann', 'Bob', 'Cy', 'Dee']));
  });
});
