import { createHmac } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SHREDDED_CHANNEL } from '@agency/platform/personal-data';
import { createTestDatabase } from '@agency/scripts/testing/test-database';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { migrateCommandSide } from '../schema';
import { ErasedMail } from './erased-recipients';
import { createMailer } from './mailer';

const digest = (address: string) => createHmac('sha256', 'test-key').update(address).digest('base64url');

/** The recipients of the .eml files in `dir`. */
const recipients = (dir: string) =>
  readdirSync(dir)
    .map((file) => /^To: (.*)$/m.exec(readFileSync(join(dir, file), 'utf8'))?.[1])
    .sort();

describe('outbox mail of erased recipients, on every instance (real PostgreSQL)', () => {
  const root = mkdtempSync(join(tmpdir(), 'agency-erased-mail-'));
  let databaseUrl = '';
  let pool: pg.Pool;
  let drop: () => Promise<void>;
  const stops: (() => Promise<void>)[] = [];
  beforeAll(async () => {
    const database = await createTestDatabase();
    ({ url: databaseUrl, drop } = database);
    pool = new pg.Pool({ connectionString: databaseUrl });
    await migrateCommandSide(pool);
  });
  afterAll(async () => {
    for (const stop of stops) await stop();
    await pool?.end();
    await drop?.();
    rmSync(root, { recursive: true, force: true });
  });

  /** An instance's outbox holding a message to each of `to`, and its follower. */
  async function instance(name: string, to: string[]) {
    const outboxDir = join(root, name);
    const mailer = createMailer({ outboxDir, from: 'agency@example.com', log: () => {} });
    for (const address of to) {
      await mailer.send({ to: address, subject: 'Booked', text: 'Booked.', html: '<p>Booked.</p>', links: [] });
    }
    const mail = await ErasedMail.open({ db: pool, outboxDir, digest });
    stops.push(await mail.follow(databaseUrl, () => {}));
    return { mail, outboxDir };
  }

  it('deletes mail to an erased address here at once, on another instance at the announcement, and on one started later', async () => {
    const a = await instance('a', ['amy@example.com', 'bob@example.com']);
    const b = await instance('b', ['amy@example.com', 'jimamy@example.com', 'bob@example.com']);

    await a.mail.forget([' Amy@Example.com ']);
    expect(recipients(a.outboxDir)).toEqual(['bob@example.com']);
    // The table names nobody: only keyed digests.
    const stored = (await pool.query('select digest from command.erased_mail_recipients')).rows;
    expect(stored).toEqual([{ digest: digest('amy@example.com') }]);

    // The vault announces the destroyed key to every instance.
    await pool.query('select pg_notify($1, $2)', [SHREDDED_CHANNEL, 'registration:r-1']);
    await vi.waitFor(() => expect(recipients(b.outboxDir)).toEqual(['bob@example.com', 'jimamy@example.com']));

    // An instance stopped during the erasure deletes its mail to the address when it starts.
    const c = await instance('c', ['amy@example.com', 'cleo@example.com']);
    await vi.waitFor(() => expect(recipients(c.outboxDir)).toEqual(['cleo@example.com']));
  });
});
