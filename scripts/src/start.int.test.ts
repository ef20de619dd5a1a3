import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from './embedded-database';

/** `npm start` as a user runs it: its own embedded PostgreSQL in DATA_DIR, on a free port. */
function start(dataDir: string, port: number, env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/src/start.ts'], {
    env: { ...process.env, PORT: String(port), DATA_DIR: dataDir, DEMO_DATA: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const ready = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready in time:\n${output}`)), 120_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      if (/is ready at .*\n[^\n]+\n/.test(output)) {
        clearTimeout(timer);
        resolve(output);
      }
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    child.on('exit', (code) => reject(new Error(`exited (${code}) before it was ready:\n${output}`)));
  });
  return { child, ready, output: () => output };
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.on('exit', (code) => resolve(code));
  });

function postmasterPid(dataDir: string): number | null {
  const file = join(dataDir, 'pg', 'postmaster.pid');
  return existsSync(file) ? Number.parseInt(readFileSync(file, 'utf8').split('\n')[0] ?? '', 10) : null;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function login(port: number, username: string, password: string) {
  const response = await fetch(`http://localhost:${port}/auth/local`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  return { status: response.status, body: await response.json() };
}

describe('npm start runs like a real server', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'agency-start-'));
  afterAll(async () => {
    // A failure midway must not leave a PostgreSQL running behind the test run.
    const pid = postmasterPid(dataDir);
    if (pid && alive(pid)) {
      process.kill(pid, 'SIGINT');
      for (let i = 0; i < 100 && alive(pid); i++) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('prints a generated admin login once, survives SIGKILL with its data, and stops cleanly on SIGTERM', async () => {
    const port = await freePort();
    const first = start(dataDir, port, { ADMIN_USERNAME: 'boss', ADMIN_PASSWORD: '' });
    const printed = await first.ready;
    expect(printed).toContain(`is ready at http://localhost:${port}`);
    const password = /Admin login: boss \/ (\S+)/.exec(printed)?.[1];
    expect(password).toBeTruthy();
    expect((await login(port, 'boss', password!)).status).toBe(200);
    const token = (await login(port, 'boss', password!)).body.token as string;
    const created = await fetch(`http://localhost:${port}/api/clients/contact`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({
        firstName: 'Kept',
        lastName: 'Family',
        address: ['1 Road'],
        postcode: 'AB1 2CD',
        email: 'kept@example.com',
        phone: [{ type: 'Home', number: '0100' }],
      }),
    });
    expect(created.status).toBe(200);

    // SIGKILL: the product cannot stop its PostgreSQL, which is left running.
    const orphan = postmasterPid(dataDir);
    first.child.kill('SIGKILL');
    await exited(first.child);
    expect(orphan && alive(orphan)).toBe(true);

    const secondPort = await freePort();
    const second = start(dataDir, secondPort);
    const again = await second.ready;
    expect(again).toContain('left behind by an earlier run');
    expect(again).not.toContain('Admin login: boss /');
    expect(alive(orphan!)).toBe(false);
    const { body } = await login(secondPort, 'boss', password!);
    const clients = await fetch(`http://localhost:${secondPort}/api/clients`, {
      headers: { authorization: `Bearer ${body.token}` },
    });
    expect((await clients.json()).clients.map((c: { name: string }) => c.name)).toEqual(['Kept Family']);

    // SIGTERM: everything stops, PostgreSQL included, and the process says so.
    const running = postmasterPid(dataDir);
    second.child.kill('SIGTERM');
    expect(await exited(second.child)).toBe(0);
    expect(second.output()).toContain('Stopped cleanly.');
    expect(running && alive(running)).toBe(false);
    expect(postmasterPid(dataDir)).toBeNull();
  });
});
