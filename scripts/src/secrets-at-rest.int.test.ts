import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, startEmbeddedDatabase } from './embedded-database';
import { exited, login, startProcess, stopLeftoverPostgres } from './testing/product-process';

const mode = (path: string) => statSync(path).mode & 0o777;

/** Connects to the cluster with this password; answers PostgreSQL's error code, or 'ok'. */
async function tryPassword(port: string, password: string): Promise<string> {
  const client = new pg.Client({
    host: '127.0.0.1',
    port: Number(port),
    user: 'agency',
    password,
    database: 'postgres',
  });
  try {
    await client.connect();
    return 'ok';
  } catch (error) {
    return String((error as { code?: string }).code);
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * This test initdb's and starts a PostgreSQL cluster of its own, which on a busy two-core machine
 * (three test files at a time) takes far longer than the suite's usual minute.
 */
const CLUSTER_TEST_MS = 240_000;

describe('secrets at rest', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'agency-secrets-'));
  afterAll(async () => {
    await stopLeftoverPostgres(dataDir);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it(
    'keeps DATA_DIR 0700 and its secrets and outbox 0600, and gives an old agency/agency cluster a generated password',
    async () => {
      // A DATA_DIR made by an earlier version: opened wide, its cluster with the fixed password.
      const old = await startEmbeddedDatabase({ dataDir });
      const client = new pg.Client({ connectionString: old.url });
      await client.connect();
      await client.query(`alter role agency password 'agency'`);
      await client.end();
      await old.stop();
      unlinkSync(join(dataDir, 'pg-password'));
      chmodSync(dataDir, 0o755);

      const port = await freePort();
      const product = startProcess(dataDir, port, {
        ADMIN_USERNAME: 'boss',
        ADMIN_PASSWORD: 'admin-password-1',
        MAIL_PRINT_LINKS: '',
      });
      const printed = await product.ready;
      expect(printed).toContain('it now has the one in DATA_DIR/pg-password');

      expect(mode(dataDir)).toBe(0o700);
      expect(mode(join(dataDir, 'jwt-secret'))).toBe(0o600);
      expect(mode(join(dataDir, 'pg-password'))).toBe(0o600);
      expect(mode(join(dataDir, 'pg-owner.json'))).toBe(0o600);
      const generated = readFileSync(join(dataDir, 'pg-password'), 'utf8').trim();
      expect(Buffer.from(generated, 'base64url').length).toBe(32);

      // The cluster takes the generated password and refuses the old fixed one.
      const owner = JSON.parse(readFileSync(join(dataDir, 'pg-owner.json'), 'utf8')) as { url: string };
      const pgPort = new URL(owner.url).port;
      expect(await tryPassword(pgPort, generated)).toBe('ok');
      expect(await tryPassword(pgPort, 'agency')).toBe('28P01');

      // Mail without SMTP_URL goes to the outbox: a folder and files only the product's account reads.
      const { body } = await login(port, 'boss', 'admin-password-1');
      const post = async (url: string, payload: object) => {
        const response = await fetch(`http://localhost:${port}${url}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${body.token}` },
          body: JSON.stringify(payload),
        });
        expect(response.status, await response.clone().text()).toBe(200);
        return response.json();
      };
      const { tutor } = await post('/api/tutors/contact', {
        commandId: randomUUID(),
        contact: {
          firstName: 'Rita',
          lastName: 'Secret',
          address: ['1 Road'],
          postcode: 'AB1 2CD',
          email: 'rita@example.com',
          phone: [{ type: 'Mobile', number: '07700 900002' }],
        },
        tutor: { username: 'rsecret', invoicePrefix: 'RS' },
      });
      await post(`/api/tutors/activate/${tutor.id}`, { commandId: randomUUID() });
      const outbox = join(dataDir, 'outbox');
      await expect.poll(() => (existsSync(outbox) ? readdirSync(outbox).length : 0)).toBe(1);
      expect(mode(outbox)).toBe(0o700);
      expect(mode(join(outbox, readdirSync(outbox)[0]!))).toBe(0o600);
      // The log names the file, never the recipient nor the link (MAIL_PRINT_LINKS is not set).
      const mail = join(outbox, readdirSync(outbox)[0]!);
      expect(readFileSync(mail, 'utf8')).toContain('rita@example.com');
      await expect.poll(() => product.output()).toContain(`Mail written to ${mail}`);
      expect(product.output()).not.toContain('rita@example.com');
      expect(product.output()).not.toMatch(/localhost:\d+\/activate\//);

      product.child.kill('SIGTERM');
      expect(await exited(product.child)).toBe(0);
    },
    CLUSTER_TEST_MS,
  );
});
