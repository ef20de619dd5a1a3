import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@agency/scripts/embedded-database';
import { keepFailingExitCode } from '@agency/scripts/testing/keep-exit-code';
import type { TestProject } from 'vitest/node';
import { chromiumPath } from './chromium';

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    admin: { username: string; password: string };
    dataDir: string;
  }
}

const ADMIN = { username: 'admin', password: 'e2e-admin-password' };

/**
 * Runs the product as `npm start` does (embedded PostgreSQL, both services, the built UI) in a
 * throw-away DATA_DIR on a free port, for the browser tests.
 */
export default async function setup(project: TestProject) {
  keepFailingExitCode();
  chromiumPath();
  const dataDir = mkdtempSync(join(tmpdir(), 'agency-e2e-'));
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'scripts/src/start.ts'], {
    env: {
      ...process.env,
      PORT: String(port),
      DATA_DIR: dataDir,
      ADMIN_USERNAME: ADMIN.username,
      ADMIN_PASSWORD: ADMIN.password,
      DEMO_DATA: '',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`The product did not start in time:\n${output}`)), 120_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('is ready at')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    child.on('exit', (code) => reject(new Error(`The product exited (${code}) before it was ready:\n${output}`)));
  });
  project.provide('baseUrl', `http://localhost:${port}`);
  project.provide('admin', ADMIN);
  project.provide('dataDir', dataDir);
  return async () => {
    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  };
}
