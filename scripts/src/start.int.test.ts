import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from './embedded-database';
import {
  alive,
  exited,
  login,
  postmasterPid,
  startProcess as start,
  stopLeftoverPostgres,
} from './testing/product-process';

describe('npm start runs like a real server', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'agency-start-'));
  afterAll(async () => {
    // A failure midway must not leave a PostgreSQL running behind the test run.
    await stopLeftoverPostgres(dataDir);
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
