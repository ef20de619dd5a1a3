import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from './embedded-database';
import { exited, login, startProcess, stopLeftoverPostgres } from './testing/product-process';

const ADMIN = { ADMIN_USERNAME: 'boss', ADMIN_PASSWORD: 'crash-test-password-1' };
const WRITERS = 6;
/** SIGKILL lands once this many commands have been answered, with others still in flight. */
const ANSWERED_BEFORE_KILL = 36;

type Sent = { commandId: string; url: string; body: Record<string, unknown>; answer?: Record<string, unknown> };

const contact = (firstName: string) => ({
  firstName,
  lastName: 'Crash',
  address: ['1 Road'],
  postcode: 'AB1 2CD',
  email: `${firstName.toLowerCase()}@example.com`,
  phone: [{ type: 'Home', number: '0100' }],
});

async function post(
  port: number,
  token: string,
  url: string,
  body: Record<string, unknown>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`http://localhost:${port}${url}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** As the UI does: the same command id again while the first attempt is still in progress. */
async function retry(port: number, token: string, url: string, body: Record<string, unknown>) {
  for (let attempt = 0; ; attempt++) {
    const answer = await post(port, token, url, body);
    const code = (answer.body.error as { code?: string } | undefined)?.code;
    if (code !== 'command_in_progress' || attempt >= 120) return answer;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** Every row of every read model table (not the bookkeeping of where projections are). */
async function readModels(db: pg.Pool) {
  const tables = await db.query(
    `select table_name from information_schema.tables
      where table_schema = 'read' and table_name !~ '(checkpoint|projection|read_model_info)' order by 1`,
  );
  const rows: Record<string, unknown[]> = {};
  for (const { table_name } of tables.rows) {
    rows[table_name] = (await db.query(`select * from read."${table_name}" t order by t::text`)).rows;
  }
  return rows;
}

describe('the product under load, killed with SIGKILL and started again', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'agency-crash-'));
  afterAll(async () => {
    await stopLeftoverPostgres(dataDir);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps every answered command exactly once, completes the unanswered ones once on retry, and its read models equal a rebuild', async () => {
    const port = await freePort();
    const first = startProcess(dataDir, port, ADMIN);
    await first.ready;
    const token = (await login(port, ADMIN.ADMIN_USERNAME, ADMIN.ADMIN_PASSWORD)).body.token as string;

    // Writers register families and add children to the families they made, concurrently.
    const sent: Sent[] = [];
    let answered = 0;
    let killed = false;
    const writer = async (w: number) => {
      for (let i = 0; !killed; i++) {
        const family: Sent = {
          commandId: randomUUID(),
          url: '/api/clients/contact',
          body: contact(`Writer${w}n${i}`),
        };
        sent.push(family);
        const made = await post(port, token, family.url, { ...family.body, commandId: family.commandId }).catch(
          () => undefined,
        );
        if (!made || killed) return;
        expect(made.status, JSON.stringify(made.body)).toBe(200);
        family.answer = made.body;
        answered++;
        const clientId = (made.body.client as { id: string }).id;
        const child: Sent = {
          commandId: randomUUID(),
          url: `/api/clients/child/${clientId}`,
          body: { firstName: `Child${w}n${i}`, lastName: 'Crash', dob: '2015-06-01' },
        };
        sent.push(child);
        const added = await post(port, token, child.url, { ...child.body, commandId: child.commandId }).catch(
          () => undefined,
        );
        if (!added || killed) return;
        expect(added.status, JSON.stringify(added.body)).toBe(200);
        child.answer = added.body;
        answered++;
      }
    };
    const writers = Array.from({ length: WRITERS }, (_, w) => writer(w));
    while (answered < ANSWERED_BEFORE_KILL) await new Promise((resolve) => setTimeout(resolve, 5));
    killed = true;
    first.child.kill('SIGKILL');
    await exited(first.child);
    await Promise.all(writers);
    const unanswered = sent.filter((command) => !command.answer);
    expect(unanswered.length).toBeGreaterThan(0);

    const secondPort = await freePort();
    const second = startProcess(dataDir, secondPort, ADMIN);
    await second.ready;
    try {
      const again = (await login(secondPort, ADMIN.ADMIN_USERNAME, ADMIN.ADMIN_PASSWORD)).body.token as string;
      // A retry of an answered command gets its first answer; an unanswered one completes now.
      for (const command of sent) {
        const retried = await retry(secondPort, again, command.url, { ...command.body, commandId: command.commandId });
        expect(retried.status, `${command.url} ${JSON.stringify(retried.body)}`).toBe(200);
        if (command.answer) {
          expect(retried.body.client ?? retried.body.child).toEqual(command.answer.client ?? command.answer.child);
        }
      }
      const clients = await fetch(`http://localhost:${secondPort}/api/clients?includeInactive=true`, {
        headers: { authorization: `Bearer ${again}` },
      });
      const names = ((await clients.json()).clients as { name: string }[]).map((c) => c.name).sort();
      const families = sent.filter((command) => command.url === '/api/clients/contact');
      expect(names).toEqual(families.map((f) => `${f.body.firstName} Crash`).sort());
      const children = await fetch(`http://localhost:${secondPort}/api/clients/all/children`, {
        headers: { authorization: `Bearer ${again}` },
      });
      const childNames = ((await children.json()).children as { firstName: string }[]).map((c) => c.firstName).sort();
      expect(childNames).toEqual(
        sent
          .filter((command) => command.url.startsWith('/api/clients/child/'))
          .map((c) => c.body.firstName)
          .sort(),
      );

      // The live read models equal the ones a rebuild from the events makes.
      const owner = JSON.parse(readFileSync(join(dataDir, 'pg-owner.json'), 'utf8')) as { url: string };
      const db = new pg.Pool({ connectionString: owner.url });
      try {
        const live = await readModels(db);
        const rebuild = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/src/rebuild.ts'], {
          env: { ...process.env, DATA_DIR: dataDir },
          encoding: 'utf8',
        });
        expect(rebuild.status, rebuild.stderr + rebuild.stdout).toBe(0);
        expect(await readModels(db)).toEqual(live);
      } finally {
        await db.end();
      }
    } finally {
      second.child.kill('SIGTERM');
      await exited(second.child);
    }
  }, 300_000);
});
