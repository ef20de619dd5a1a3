import { randomBytes, randomUUID } from 'node:crypto';
import type { PersonalDataRule } from '@agency/contracts';
import { type EventToAppend, type Position, PostgresEventStore, type RecordedEvent } from '@agency/platform';
import { PersonalDataEventStore, PersonalDataVault, type Sealed } from '@agency/platform/personal-data';
import { createTestDatabase } from '@agency/scripts/testing/test-database';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LIVE_SCHEMA, ProjectionRunner, readStatuses } from './projection-runner';
import type { Projection } from './read-models/projection';
import { ensureReadModels } from './read-models/read-schema';
import { buildQueryApp } from './testing/query-app';

const meta = { userId: 'u', role: 'admin', commandId: 'c', correlationId: 'c', causationId: 'c' };
/** `Secret.name` is personal data of `owner`; `Noted` has none. */
const rules: Record<string, PersonalDataRule> = {
  Secret: { subjectOf: (data) => String(data.owner), fields: [{ path: ['name'], erased: () => 'Erased' }] },
};
/** A `Noted` stored at this version cannot be upcast (as if its step were missing). */
const UNKNOWN_VERSION = 99;

/** Records the value of one field of each event of one type, in its own table. */
const recorder = (name: string, type: string, field: string): Projection => ({
  name,
  version: 1,
  handlers: {
    [type]: async (sql, event: RecordedEvent) => {
      await sql.query(`create table if not exists ${name} (event_id text primary key, value text not null)`);
      await sql.query(`insert into ${name} values ($1, $2)`, [event.id, String(event.data[field])]);
    },
  },
});
const secrets = recorder('secrets', 'Secret', 'name');
const notes = recorder('notes', 'Noted', 'label');

/**
 * An event that cannot be read (a sealed field that does not open, a key id nobody knows, a
 * version no upcaster turns into the current one) stops only the projections that handle its
 * type, at that event, with the failure recorded and reported like one they could not apply; the
 * other projections go past it. Before, the whole read failed: every projection stood still,
 * nothing was recorded and health said "ok".
 */
describe('an event that cannot be read stops only the projections that handle it', () => {
  let pool: pg.Pool;
  let raw: PostgresEventStore;
  let vault: PersonalDataVault;
  let drop: () => Promise<void>;
  let runner: ProjectionRunner;
  let query: FastifyInstance;

  beforeAll(async () => {
    const database = await createTestDatabase();
    drop = database.drop;
    pool = new pg.Pool({ connectionString: database.url });
    raw = await PostgresEventStore.connect(database.url, {
      upcast: (type, version, data) => {
        if (version === UNKNOWN_VERSION) throw new Error(`No upcaster for ${type} from version ${version}`);
        return { version: version ?? 1, data };
      },
    });
    vault = await PersonalDataVault.open(pool, { masterKey: randomBytes(32) });
    const store = new PersonalDataEventStore(raw, vault, rules);
    await ensureReadModels(pool, store, [secrets, notes]);
    runner = new ProjectionRunner(pool, store, [secrets, notes], () => {}, {
      backoff: { firstMs: 20, maxMs: 200 },
      idleCheckMs: 100,
    });
    runner.start();
    query = await buildQueryApp({ databaseUrl: database.url, jwtSecret: 'test-secret-test-secret-test-secret', store });
  });
  afterAll(async () => {
    runner.stop();
    await query.close();
    await raw.close();
    await pool.end();
    await drop();
  });

  /** Appended as stored, underneath the personal-data layer (a sealed field passes as it is). */
  const append = async (event: Omit<EventToAppend, 'metadata'>, metadata: EventToAppend['metadata'] = meta) => {
    const streamId = `${event.type.toLowerCase()}-${randomUUID()}`;
    const { position } = await raw.appendToStream(streamId, [{ ...event, metadata }], {
      expectedRevision: 'no_stream',
    });
    const id = (await pool.query('select event_id from es.events where stream_id = $1', [streamId])).rows[0].event_id;
    return { streamId, position, id: String(id) };
  };
  const secret = async (owner: string, name: string, tamper: (sealed: Sealed) => Sealed = (sealed) => sealed) =>
    append({ type: 'Secret', data: { owner, name: tamper(await vault.encrypt(owner, name, 'Secret.name')) } });
  const note = (label: string) => append({ type: 'Noted', data: { label } });
  const values = async (table: string) =>
    (
      await pool
        .query(`select value from ${LIVE_SCHEMA}.${table} order by value`)
        .catch(() => ({ rows: [] as { value: string }[] }))
    ).rows.map((row) => row.value);
  const status = async (name: string) => (await readStatuses(pool, LIVE_SCHEMA)).get(name);
  const health = async () => (await query.inject({ method: 'GET', url: '/api/health' })).json();
  const at = (position: Position) => `${position.commit}/${position.prepare}`;

  it('a sealed field that does not open: its projection stops there and says why, the other goes past', async () => {
    await vi.waitFor(async () => expect((await status('notes'))?.following).toBe(true));
    await secret('s-1', 'Ann');
    await note('n1');
    const broken = await secret('s-2', 'Bob', (sealed) => ({
      ...sealed,
      ct: Buffer.from(Buffer.from(sealed.ct, 'base64').map((byte) => byte ^ 1)).toString('base64'),
    }));
    await note('n2');
    await secret('s-3', 'Cy');

    await vi.waitFor(async () => expect(await values('notes')).toEqual(['n1', 'n2']));
    await vi.waitFor(async () => expect((await status('secrets'))?.failure).toBeTruthy());
    expect(await values('secrets')).toEqual(['Ann']);
    const stalled = await status('secrets');
    expect(stalled?.failure).toMatchObject({
      position: at(broken.position),
      streamId: broken.streamId,
      type: 'Secret',
    });
    expect(stalled?.failure?.eventId).toBe(broken.id);
    expect(stalled?.failure?.error).toContain('cannot be read');
    expect(stalled?.failure?.error).toContain('Secret.name');
    expect((await status('notes'))?.failure).toBeNull();
    expect(await health()).toEqual({ status: 'degraded' });
    // Retried with backoff, and never skipped.
    await vi.waitFor(async () => expect((await status('secrets'))?.attempts).toBeGreaterThanOrEqual(2));
    expect(await values('secrets')).toEqual(['Ann']);

    // Mended in the store (read again at each retry): it goes on from there, nothing lost.
    const good = await vault.encrypt('s-2', 'Bob', 'Secret.name');
    await pool.query(`update es.events set data = jsonb_set(data, '{name}', $2::jsonb) where stream_id = $1`, [
      broken.streamId,
      JSON.stringify(good),
    ]);
    await vi.waitFor(async () => expect(await values('secrets')).toEqual(['Ann', 'Bob', 'Cy']));
    await vi.waitFor(async () => expect((await status('secrets'))?.failure).toBeNull());
    expect(await health()).toEqual({ status: 'ok' });
  });

  it('a key id nobody knows is a failure, never "Erased"', async () => {
    await vi.waitFor(async () => expect((await status('secrets'))?.following).toBe(true));
    const unknown = await secret('s-4', 'Dee', (sealed) => ({ ...sealed, kid: randomUUID() }));
    await note('n3');
    await vi.waitFor(async () => expect(await values('notes')).toEqual(['n1', 'n2', 'n3']));
    await vi.waitFor(async () => expect((await status('secrets'))?.failure).toBeTruthy());
    expect((await status('secrets'))?.failure).toMatchObject({ position: at(unknown.position), type: 'Secret' });
    expect((await status('secrets'))?.failure?.error).toContain('no such key id');
    expect(await values('secrets')).toEqual(['Ann', 'Bob', 'Cy']);
    expect(await health()).toEqual({ status: 'degraded' });
    await pool.query('delete from es.events where event_id = $1', [unknown.id]);
    await vi.waitFor(async () => expect((await status('secrets'))?.failure).toBeNull());
  });

  it('a payload no upcaster can bring to the current version stops the projections of its type only', async () => {
    await vi.waitFor(async () => expect((await status('secrets'))?.following).toBe(true));
    const old = await append({ type: 'Noted', data: { label: 'old' } }, { ...meta, schemaVersion: UNKNOWN_VERSION });
    await secret('s-5', 'Eve');
    await vi.waitFor(async () => expect(await values('secrets')).toEqual(['Ann', 'Bob', 'Cy', 'Eve']));
    await vi.waitFor(async () => expect((await status('notes'))?.failure).toBeTruthy());
    expect((await status('notes'))?.failure).toMatchObject({ position: at(old.position), type: 'Noted' });
    expect((await status('notes'))?.failure?.error).toContain(`No upcaster for Noted from version ${UNKNOWN_VERSION}`);
    expect(await values('notes')).toEqual(['n1', 'n2', 'n3']);
    expect(await health()).toEqual({ status: 'degraded' });
  });
});
